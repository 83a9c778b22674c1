/**
 * The Code tab's REPL console (spec §9, `POST /browsers/{id}/repl`): a transcript of cells —
 * each the code sent, then its ordered output (`repl.write`, stdout, stderr, images) and its
 * error — and an input that runs on Ctrl/⌘+Enter. State lives in the session's REPL process:
 * "Reset" starts a fresh one; a cell that timed out or crashed says the REPL was terminated.
 */
import { useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import type { ReplResult } from '../../../../shared/wire/session-repl';
import { api } from '../../transport/api-client';
import { Badge, Button, Field } from '../../components/ui';
import { reportError } from '../../stores/toasts';
import { runOnCtrlEnter } from './pane-keys';

interface Cell {
  code: string;
  r: ReplResult;
}

/** Read-only, like the Code sample: the REPL's page is the user's tab, which it must not navigate. */
const REPL_SAMPLE = `repl.write(await page.title() || '(untitled)');\nrepl.write(page.url());`;

/** Cells kept in the transcript (older ones drop off). */
const MAX_CELLS = 50;

export function ReplConsole({ session }: { session: Session }): React.JSX.Element {
  const [code, setCode] = useState(REPL_SAMPLE);
  const [busy, setBusy] = useState(false);
  const [cells, setCells] = useState<Cell[]>([]);

  const send = async (body: { code: string; reset?: boolean }): Promise<void> => {
    if (busy) return;
    setBusy(true);
    try {
      const r = await api.call('POST /browsers/:id/repl', { params: { id: session.session_id }, body });
      setCells((cs) => [...cs, { code: body.code || '(reset)', r }].slice(-MAX_CELLS));
      if (body.code && r.success) setCode('');
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const replId = cells.at(-1)?.r.repl_id;

  return (
    <section className="card repl-console" aria-label="REPL">
      <div className="toolbar">
        <h4>REPL</h4>
        {replId ? <span className="muted small mono">repl {replId}</span> : null}
        <span className="spacer" />
        <Button onClick={() => void send({ code: '', reset: true })} disabled={busy}>
          Reset
        </Button>
      </div>
      <ol className="repl-transcript">
        {cells.map((c, i) => (
          <li key={i} className="repl-cell">
            <pre className="mono repl-code">{c.code}</pre>
            {(c.r.content ?? []).map((item, j) =>
              item.type === 'image' ? (
                <img key={j} className="repl-image" alt="image from repl.emitImage" src={`data:${item.mime_type};base64,${item.data_b64}`} />
              ) : (
                <pre key={j} className={`output repl-${item.channel}${item.channel === 'stderr' ? ' output-err' : ''}`}>
                  {item.text}
                </pre>
              ),
            )}
            {c.r.content_truncated ? <p className="muted small">output truncated</p> : null}
            {c.r.error ? (
              <pre className="output output-err repl-error" role="alert">
                {c.r.error}
              </pre>
            ) : null}
            {c.r.repl_terminated ? <Badge tone="bad">REPL terminated: the next cell starts a fresh one</Badge> : null}
          </li>
        ))}
      </ol>
      <Field label="REPL input" hint="Ctrl+Enter (⌘+Enter) runs it. Bindings persist across cells; top-level await works.">
        <textarea
          className="mono code-editor"
          spellCheck={false}
          rows={5}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          onKeyDown={runOnCtrlEnter(() => void (code.trim() && send({ code })))}
        />
      </Field>
      <div className="toolbar">
        <span className="spacer" />
        <Button variant="primary" busy={busy} onClick={() => void (code.trim() && send({ code }))}>
          {busy ? 'Evaluating…' : 'Evaluate'}
        </Button>
      </div>
    </section>
  );
}
