/**
 * WebSocket attach to a session process, for interactive terminals (xterm in the UI).
 *
 * Endpoint: `ws://{engine}/browsers/{id}/process/{process_id}/attach`, authenticated like every
 * session route: `Authorization: Bearer <api key>` or `?jwt=<session JWT>`. Unknown session or
 * process → HTTP 404 before the upgrade.
 *
 * Protocol:
 * - server → client, binary frames: raw output bytes (PTY output; for pipe processes stdout and
 *   stderr interleaved). The first frames replay the output since the process started (bounded
 *   history), then live output follows.
 * - server → client, text frame `{"event":"exit","exit_code":N}` when the process exits, then a
 *   normal close (1000). Also sent right away when attaching to an already exited process.
 * - server → client, text frame `{"event":"output_dropped","bytes":N}` before the next output
 *   when a client reading slower than the process writes fell more than `--exec-output-max-bytes`
 *   behind: that much output was dropped rather than queued in the engine.
 * - client → server, binary frames: raw bytes written to the process's stdin / PTY.
 * - client → server, text frames: JSON control messages only:
 *   `{"type":"resize","cols":120,"rows":40}` (PTY processes; ignored otherwise) and
 *   `{"type":"input","data":"ls\r"}` (UTF-8 text to stdin, a convenience for text-only clients).
 *   Anything else is answered with a text frame `{"event":"error","message":…}` and ignored.
 * - The socket closes with 1001 when the session ends. Closing the socket does not kill the
 *   process (use `/kill`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionRegistry } from '../session/session-handle.js';
import type { ProcessTable } from './process-table.js';
import type { SessionProcess } from './session-process.js';
import { ReaderBacklog } from './reader-backlog.js';

/** `maxBacklog`: output bytes waiting for one slow client beyond which more is dropped (ReaderBacklog). */
export function createTerminalAttach(sessions: () => SessionRegistry | undefined, table: ProcessTable, maxBacklog: number) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4 * 1024 * 1024 });
  const sockets = new Set<WebSocket>();

  async function handle(req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL): Promise<void> {
    // A failure is thrown: the upgrade router answers it (and logs what is unexpected).
    const registry = sessions();
    if (!registry) throw DomainError.notFound('browser session', params.id);
    const session = await registry.requireUpgrade(req, url, params.id);
    const proc = table.get(session.id, params.process_id);
    const release = session.holdActive();
    wss.handleUpgrade(req, socket, head, (ws) => bridge(ws, proc, release, session.signal));
  }

  function bridge(ws: WebSocket, proc: SessionProcess, release: () => void, sessionSignal: AbortSignal): void {
    sockets.add(ws);
    const onSessionEnd = () => ws.close(1001, 'session ended');
    sessionSignal.addEventListener('abort', onSessionEnd, { once: true });
    const backlog = new ReaderBacklog(() => ws.bufferedAmount, maxBacklog);
    const unsubscribe = proc.subscribe({
      output: (c) => {
        if (ws.readyState !== ws.OPEN || !backlog.admit(c.data.length)) return;
        const dropped = backlog.takeDropped();
        if (dropped) ws.send(JSON.stringify({ event: 'output_dropped', bytes: dropped }));
        ws.send(c.data, { binary: true });
      },
      exit: (code) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify({ event: 'exit', exit_code: code }));
        ws.close(1000, 'process exited');
      },
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) {
        proc.write(buf);
        return;
      }
      let msg: { type?: string; cols?: unknown; rows?: unknown; data?: unknown };
      try {
        msg = JSON.parse(buf.toString('utf8'));
      } catch {
        msg = {};
      }
      if (msg.type === 'resize' && isDim(msg.cols) && isDim(msg.rows)) proc.resize(msg.cols, msg.rows);
      else if (msg.type === 'input' && typeof msg.data === 'string') proc.write(Buffer.from(msg.data, 'utf8'));
      else ws.send(JSON.stringify({ event: 'error', message: 'text frames must be {"type":"resize","cols","rows"} or {"type":"input","data"}' }));
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      sockets.delete(ws);
      unsubscribe();
      sessionSignal.removeEventListener('abort', onSessionEnd);
      release();
    });
  }

  return {
    handle,
    closeAll(): void {
      for (const ws of sockets) ws.close(1001, 'engine stopping');
    },
  };
}

function isDim(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1000;
}
