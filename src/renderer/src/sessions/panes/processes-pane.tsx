/**
 * Processes tab: run a command and wait for its output (`process/exec`), start one in the
 * background (`process/spawn`), or open an interactive shell (spawn with a PTY + the attach
 * WebSocket in an xterm). Every process the session ran is listed (the engine's list, polled)
 * with state, exit (named by signal above 128), CPU and memory, and can be attached to or killed
 * with a chosen signal. An ended session shows the table the engine recorded (its post-mortem),
 * read-only.
 */
import { useCallback, useState } from 'react';
import type { ProcessExecResult as ExecResult } from '../../../../shared/wire/session-processes';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { Badge, Button, EmptyState, Field, formatTime } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { usePolling } from '../../stores/use-polling';
import { base64ToText, formatBytes } from './session-api';
import { shellCommand, useProcesses, type ProcessEntry } from './processes-store';
import { ProcessTerminal } from './process-terminal';
import { usePaneKey } from './pane-keys';

const SIGNALS = ['TERM', 'KILL', 'INT', 'HUP'] as const;
const EMPTY: ProcessEntry[] = [];

type Signal = (typeof SIGNALS)[number];

function KillControl({ onKill }: { onKill(signal: Signal): Promise<void> }): React.JSX.Element {
  const [signal, setSignal] = useState<Signal>('TERM');
  const [busy, setBusy] = useState(false);
  return (
    <span className="kill-control">
      <select aria-label="Signal" value={signal} onChange={(e) => setSignal(SIGNALS.find((s) => s === e.target.value) ?? 'TERM')}>
        {SIGNALS.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <Button
        variant="danger"
        busy={busy}
        onClick={async () => {
          setBusy(true);
          await onKill(signal);
          setBusy(false);
        }}
      >
        Kill
      </Button>
    </span>
  );
}

export function ProcessesPane({ session }: PaneProps): React.JSX.Element {
  const sid = session.session_id;
  const procs = useProcesses((st) => st.bySession[sid] ?? EMPTY);
  const { add, patch, refresh } = useProcesses.getState();
  const [line, setLine] = useState('');
  const [busy, setBusy] = useState<'exec' | 'spawn' | 'tty' | null>(null);
  const [result, setResult] = useState<{ command: string; r: ExecResult } | null>(null);
  const [attached, setAttached] = useState<string | null>(null);

  const ended = !!session.deleted_at;
  // Polled: a session's processes (and their exits) are not resources on the change feed. An
  // ended session's table no longer changes: read once (the interval only retries a failure).
  usePolling(
    useCallback(() => refresh(session), [refresh, session]),
    ended ? 60_000 : 2000,
  );

  const start = async (mode: 'spawn' | 'tty'): Promise<void> => {
    setBusy(mode);
    try {
      const body =
        mode === 'tty' ? { command: 'bash', args: ['-i'], allocate_tty: true, cols: 120, rows: 32, env: { TERM: 'xterm-256color' } } : shellCommand(line);
      const r = await api.call('POST /browsers/:id/process/spawn', { params: { id: session.session_id }, body });
      add(sid, {
        process_id: r.process_id,
        pid: r.pid,
        started_at: r.started_at,
        command: mode === 'tty' ? 'bash -i (terminal)' : line,
        tty: mode === 'tty',
        state: 'running',
      });
      setAttached(r.process_id);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };

  const exec = async (): Promise<void> => {
    if (!line.trim()) return;
    setBusy('exec');
    try {
      const r = await api.call('POST /browsers/:id/process/exec', { params: { id: session.session_id }, body: shellCommand(line) });
      setResult({ command: line, r });
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };

  const kill = async (p: ProcessEntry, signal: Signal): Promise<void> => {
    try {
      await api.call('POST /browsers/:id/process/:process_id/kill', { params: { id: session.session_id, process_id: p.process_id }, body: { signal } });
      notify(`Sent SIG${signal} to ${p.pid ?? p.process_id}`);
      await refresh(session);
    } catch (err) {
      reportError(err);
    }
  };

  usePaneKey('t', () => void (ended || start('tty')));
  const current = procs.find((p) => p.process_id === attached);

  return (
    <div className="processes-pane">
      {ended ? null : (
        <form
          className="card command-form"
          onSubmit={(e) => {
            e.preventDefault();
            void exec();
          }}
        >
          <Field label="Command" hint="Runs with sh -c in the session sandbox. Run waits and shows the output; Start leaves it running in the background.">
            <input className="mono" placeholder="ls -la /downloads" value={line} onChange={(e) => setLine(e.target.value)} />
          </Field>
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy === 'exec'} disabled={!line.trim()}>
              Run
            </Button>
            <Button busy={busy === 'spawn'} disabled={!line.trim()} onClick={() => void start('spawn')}>
              Start in background
            </Button>
            <Button busy={busy === 'tty'} onClick={() => void start('tty')}>
              Open terminal <kbd>t</kbd>
            </Button>
          </div>
        </form>
      )}

      {result ? (
        <section className="card exec-result" aria-label="Command output">
          <div className="toolbar">
            <strong className="mono">{result.command}</strong>
            <Badge tone={result.r.exit_code === 0 ? 'ok' : 'bad'}>{`exit ${result.r.exit_code ?? '?'}`}</Badge>
            {result.r.duration_ms !== undefined ? <span className="muted small">{result.r.duration_ms} ms</span> : null}
            {result.r.timed_out ? <Badge tone="warn">timed out</Badge> : null}
            {result.r.output_truncated ? <Badge tone="warn">output truncated</Badge> : null}
            <span className="spacer" />
            <Button variant="ghost" onClick={() => setResult(null)}>
              Close
            </Button>
          </div>
          <h4>stdout</h4>
          <pre className="output">{base64ToText(result.r.stdout_b64) || '(empty)'}</pre>
          {result.r.stderr_b64 ? (
            <>
              <h4>stderr</h4>
              <pre className="output output-err">{base64ToText(result.r.stderr_b64)}</pre>
            </>
          ) : null}
        </section>
      ) : null}

      {procs.length ? (
        <table className="table processes">
          <thead>
            <tr>
              <th>PID</th>
              <th>Command</th>
              <th>State</th>
              <th className="num">CPU</th>
              <th className="num">Memory</th>
              <th>Started</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {procs.map((p) => (
              <tr key={p.process_id} className={p.process_id === attached ? 'row-selected' : p.state === 'exited' ? 'row-muted' : undefined}>
                <td className="mono">{p.pid ?? '—'}</td>
                <td className="mono ellipsis" title={p.command}>
                  {p.command}
                </td>
                <td>
                  {p.state === 'running' && ended ? (
                    <Badge tone="warn">ended with the session</Badge>
                  ) : p.state === 'running' ? (
                    <Badge tone="ok">running</Badge>
                  ) : p.state === 'exited' ? (
                    <Badge tone={p.exit_code ? 'bad' : undefined}>{`exited ${p.exit_code ?? ''}${p.exit_signal ? ` (${p.exit_signal})` : ''}`}</Badge>
                  ) : (
                    <Badge tone="warn">unknown</Badge>
                  )}
                  {p.error ? <span className="muted small"> {p.error}</span> : null}
                </td>
                <td className="num">{p.state === 'running' && !ended && p.cpu_pct !== undefined ? `${p.cpu_pct.toFixed(1)} %` : '—'}</td>
                <td className="num nowrap">{p.state === 'running' && !ended ? formatBytes(p.mem_bytes) : '—'}</td>
                <td className="small nowrap">{formatTime(p.started_at)}</td>
                <td className="row-actions">
                  {ended ? null : <Button onClick={() => setAttached(p.process_id)}>{p.tty ? 'Terminal' : 'Output'}</Button>}
                  {p.state !== 'exited' && !ended ? <KillControl onKill={(sig) => kill(p, sig)} /> : null}
                  {p.state !== 'running' && !ended ? (
                    <Button variant="ghost" onClick={() => useProcesses.getState().remove(sid, p.process_id)}>
                      Remove
                    </Button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <EmptyState title={ended ? 'No processes recorded' : 'No processes yet'}>
          Processes the session runs (from here, the SDK or exec) are listed here. Run a command above, or open a terminal to work in the session interactively.
        </EmptyState>
      )}

      {current ? (
        <ProcessTerminal session={session} proc={current} onExit={(code) => patch(sid, current.process_id, { state: 'exited', exit_code: code })} />
      ) : null}
    </div>
  );
}
