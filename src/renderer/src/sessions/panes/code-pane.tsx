/**
 * Code tab: a Playwright code editor (function body with `page`, `context`, `browser`; may
 * `return`) run through `playwright/execute` on a chosen executor (`default`: the user's tab; a
 * new name makes a named executor with its own tab; the list comes from `playwright/executors`,
 * and the chosen one can be deleted — `default` restarted), optionally recording a trace;
 * Ctrl/⌘+Enter runs. Shows success or the error, the JSON result, stdout, stderr, the tab `page`
 * was bound to, the trace's path and how long the call took. Below it, the REPL console.
 */
import { useEffect, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { Badge, Button, Field } from '../../components/ui';
import { reportError } from '../../stores/toasts';
import { runOnCtrlEnter } from './pane-keys';
import type { ExecuteResult, Executor } from '../../../../shared/wire/session-code';
import { ReplConsole } from './repl-console';

type ExecResult = ExecuteResult;

// Read-only on purpose: the default executor is the tab under investigation, so the sample must
// not navigate it (or change it) when someone presses Run to see what the pane does.
export const SAMPLE = `// page, context and browser are in scope; return a JSON value.
// This sample only reads: page.goto() here would navigate the tab you are looking at.
console.log('hello from the session');
return { title: await page.title(), url: page.url() };`;

export function CodePane({ session }: PaneProps): React.JSX.Element {
  const [code, setCode] = useState(SAMPLE);
  const [timeout, setTimeoutSec] = useState('60');
  const [busy, setBusy] = useState(false);
  const [out, setOut] = useState<{ r: ExecResult; ms: number } | null>(null);
  const [executor, setExecutor] = useState('default');
  const [executors, setExecutors] = useState<Executor[]>([]);
  const [trace, setTrace] = useState(false);
  const resultRef = useRef<HTMLElement>(null);
  const loadExecutors = async (): Promise<void> => {
    try {
      setExecutors((await api.call('GET /browsers/:id/playwright/executors', { params: { id: session.session_id } })).executors);
    } catch {
      // An older engine has no executors: the picker then offers only what is typed.
    }
  };
  useEffect(() => {
    void loadExecutors();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per session
  }, [session.session_id]);
  const removeExecutor = async (): Promise<void> => {
    try {
      await api.call('DELETE /browsers/:id/playwright/executors/:name', { params: { id: session.session_id, name: executor } });
      if (executor !== 'default') setExecutor('default');
      await loadExecutors();
    } catch (err) {
      reportError(err);
    }
  };
  useEffect(() => {
    // A block body: scrollIntoView may return a Promise, which React would call as the cleanup.
    resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [out]);

  const run = async (): Promise<void> => {
    if (busy || !code.trim()) return;
    setBusy(true);
    const t0 = performance.now();
    try {
      const r = await api.call('POST /browsers/:id/playwright/execute', {
        params: { id: session.session_id },
        body: {
          code,
          ...(timeout.trim() ? { timeout_sec: Number(timeout) } : {}),
          ...(executor.trim() && executor.trim() !== 'default' ? { executor: executor.trim() } : {}),
          ...(trace ? { trace: true } : {}),
        },
      });
      setOut({ r, ms: Math.round(performance.now() - t0) });
      void loadExecutors();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="code-pane">
      <div className="card">
        <Field label="Playwright code" hint="Ctrl+Enter (⌘+Enter) runs it.">
          <textarea
            className="mono code-editor"
            spellCheck={false}
            rows={12}
            value={code}
            onChange={(e) => setCode(e.target.value)}
            onKeyDown={runOnCtrlEnter(() => void run())}
          />
        </Field>
        <div className="toolbar code-actions">
          <Field label="Timeout (s)">
            <input type="number" min={1} max={600} className="num-input" value={timeout} onChange={(e) => setTimeoutSec(e.target.value)} />
          </Field>
          <Field label="Executor" hint="default: the tab you are on; a new name gets its own tab.">
            <input className="executor-input" list="executor-names" value={executor} onChange={(e) => setExecutor(e.target.value)} />
          </Field>
          <datalist id="executor-names">
            {executors.map((e) => (
              <option key={e.name} value={e.name}>
                {e.busy ? 'busy' : ''} {e.url ?? ''}
              </option>
            ))}
          </datalist>
          <Button onClick={() => void removeExecutor()} className="align-end" disabled={!executors.some((e) => e.name === executor)}>
            {executor === 'default' ? 'Restart executor' : 'Delete executor'}
          </Button>
          <label className="align-end">
            <input type="checkbox" checked={trace} onChange={(e) => setTrace(e.target.checked)} /> Record trace
          </label>
          <span className="spacer" />
          <Button variant="primary" busy={busy} onClick={() => void run()} className="align-end">
            {busy ? 'Running…' : 'Run'} <kbd>Ctrl</kbd>
            <kbd>Enter</kbd>
          </Button>
        </div>
      </div>
      {out ? (
        <section ref={resultRef} className="card code-result" aria-label="Run result">
          <div className="toolbar">
            {out.r.success ? <Badge tone="ok">success</Badge> : <Badge tone="bad">failed</Badge>}
            <span className="muted small">{out.ms} ms</span>
            {out.r.tab ? (
              <span className="muted small mono">
                tab {out.r.tab.target_id}
                {out.r.tab.created ? ' (opened)' : ''}
              </span>
            ) : null}
            {out.r.trace_path ? <span className="muted small mono">trace {out.r.trace_path}</span> : null}
          </div>
          {out.r.error ? (
            <pre className="output output-err" role="alert">
              {out.r.error}
            </pre>
          ) : null}
          {out.r.success ? (
            <>
              <h4>Result</h4>
              <pre className="output result-json">{out.r.result === undefined ? '(no value returned)' : JSON.stringify(out.r.result, null, 2)}</pre>
            </>
          ) : null}
          <h4>stdout</h4>
          <pre className="output">{out.r.stdout || '(empty)'}</pre>
          <h4>stderr</h4>
          <pre className="output output-err">{out.r.stderr || '(empty)'}</pre>
        </section>
      ) : null}
      <ReplConsole session={session} />
    </div>
  );
}
