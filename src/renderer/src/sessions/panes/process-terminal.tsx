/**
 * An xterm attached to a session process over the attach WebSocket
 * (`{base_url}/process/{id}/attach?jwt=`, protocol in engine runtime/processes/terminal-attach.ts):
 * binary frames are output (history first, then live), keystrokes go back as binary frames,
 * size changes as `{"type":"resize"}`; a text frame `{"event":"exit"}` ends it.
 */
import { useCallback, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import type { Session } from '../../../../shared/wire/sessions';
import { Badge } from '../../components/ui';
import { XtermView } from './xterm-view';
import { sessionWsUrl } from '../session-urls';
import type { ProcessEntry } from './processes-store';

type LinkState = 'connecting' | 'attached' | 'exited' | 'closed';

export function ProcessTerminal({ session, proc, onExit }: { session: Session; proc: ProcessEntry; onExit(code: number | null): void }): React.JSX.Element {
  const [state, setState] = useState<LinkState>('connecting');
  const [reason, setReason] = useState<string>('');
  const attach = useCallback(
    (term: Terminal) => {
      const url = sessionWsUrl(session, '/browsers/:id/process/:process_id/attach', { process_id: proc.process_id });
      if (!url) {
        term.write('This session carries no base_url/JWT: cannot attach.\r\n');
        setState('closed');
        return;
      }
      const ws = new WebSocket(url);
      ws.binaryType = 'arraybuffer';
      const enc = new TextEncoder();
      const sendSize = (): void => {
        if (proc.tty && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
      };
      ws.onopen = () => {
        setState('attached');
        sendSize();
        if (proc.tty) term.focus();
      };
      ws.onmessage = (e) => {
        if (typeof e.data !== 'string') {
          term.write(new Uint8Array(e.data as ArrayBuffer));
          return;
        }
        try {
          const m = JSON.parse(e.data) as { event?: string; exit_code?: number | null; message?: string };
          if (m.event === 'exit') {
            term.write(`\r\n\x1b[2m[process exited with code ${m.exit_code ?? '?'}]\x1b[0m\r\n`);
            setState('exited');
            onExit(m.exit_code ?? null);
          } else if (m.event === 'error') term.write(`\r\n\x1b[31m${m.message ?? 'error'}\x1b[0m\r\n`);
        } catch {}
      };
      ws.onclose = (e) => {
        setState((s) => (s === 'exited' ? s : 'closed'));
        setReason(e.reason || (e.code === 1001 ? 'the session ended' : e.code === 1006 ? 'the connection was refused or dropped' : `code ${e.code}`));
      };
      const data = term.onData((d) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(enc.encode(d));
      });
      const resize = term.onResize(sendSize);
      return () => {
        data.dispose();
        resize.dispose();
        ws.close();
      };
    },
    // Re-attach only for another process (or session), not on every status poll.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [session.session_id, proc.process_id],
  );
  return (
    <div className="proc-terminal">
      <div className="terminal-bar">
        <span className="mono">{proc.command}</span>
        <span className="spacer" />
        {state === 'connecting' ? <Badge tone="warn">connecting…</Badge> : null}
        {state === 'attached' ? <Badge tone="ok">attached</Badge> : null}
        {state === 'exited' ? <Badge>exited</Badge> : null}
        {state === 'closed' ? <Badge tone="bad">{`disconnected: ${reason}`}</Badge> : null}
      </div>
      <XtermView key={proc.process_id} convertEol={!proc.tty} label={`Terminal: ${proc.command}`} onReady={attach} />
    </div>
  );
}
