/**
 * `/browsers/{id}/process/*` (wire §3.12): exec (run to completion), spawn (optionally on a PTY),
 * status, stdin, stdout/stream (SSE), kill, resize, and the WebSocket attach documented in
 * `runtime/processes/terminal-attach.ts`. Processes run sandboxed in the session filesystem
 * (see `sandbox-command.ts`) and die with their session and with the engine. An `exec` answers
 * each stream's first `--exec-output-max-bytes` with `stdout_truncated`/`stderr_truncated`, and
 * takes one of the session's exec/execute slots (`services.callLimits`) while it runs. A
 * `stdout/stream` reader more than that many bytes behind loses output rather than the engine its
 * memory: the next frame says how much (`dropped_bytes`). `GET /browsers/{id}/processes` (an
 * engine route) lists every process the session ran, from the engine's process table while it
 * runs and from its post-mortem once it ended; a listed process is killed with `…/kill`.
 */
import { Readable } from 'node:stream';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import { CappedOutput } from '../runtime/processes/capped-output.js';
import { execAnswerPieces } from '../runtime/processes/exec-answer.js';
import { ReaderBacklog } from '../runtime/processes/reader-backlog.js';
import { createTerminalAttach } from '../runtime/processes/terminal-attach.js';
import { sandboxWarning } from '../runtime/sandbox/bwrap.js';
import { requireSession } from './session-fs.js';
import { endedSession } from './ended-session.js';
import { type ProcessExec, type ProcessExecResult } from '../../shared/wire/session-processes.js';
import { route } from '../route.js';

function refuseIdentityChange(b: ProcessExec): void {
  if (b.as_root) throw ApiError.unprocessable('as_root is not supported: session processes run with the sandbox identity', 'unsupported_option');
  if (b.as_user) throw ApiError.unprocessable('as_user is not supported: session processes run with the sandbox identity', 'unsupported_option');
}

export const sessionProcessesFeature: Feature<'sessions' | 'callLimits' | 'processes' | 'postmortem'> = {
  name: 'session-processes',
  register(app, ctx, { sessions, callLimits, processes: table, postmortem }) {
    // Loud at start when processes and Playwright code cannot be sandboxed here.
    void sandboxWarning().then((w) => w && ctx.log.warn(w));
    const attach = createTerminalAttach(() => sessions, table, ctx.config.execLimits.outputMaxBytes);
    ctx.upgrades.add('/browsers/:id/process/:process_id/attach', attach.handle);
    ctx.onStop(async () => {
      attach.closeAll();
      await table.stopAll();
    });

    route(app, 'POST /browsers/:id/process/exec', async (req, reply) => {
      const s = await requireSession(sessions, req);
      const b = req.body;
      refuseIdentityChange(b);
      // Over the session's or the engine's bound: 429 now, not a queue.
      reply.raw.once('close', callLimits.acquire(s.id, 'exec'));
      const started = Date.now();
      // Each stream's first bytes up to the cap, from the first byte on; the rest is drained and
      // dropped, so the command runs to its own end (and exit code) and is never blocked on a pipe.
      const cap = ctx.config.execLimits.outputMaxBytes;
      const out = { stdout: new CappedOutput(cap), stderr: new CappedOutput(cap) };
      const proc = await table.start(s, b, { historyBytes: 0, capture: { output: (c) => out[c.stream].push(c.data), exit: () => {} } }, 'exec');
      proc.endInput();
      // A caller that goes away does not leave its command running.
      reply.raw.on('close', () => {
        if (proc.running) proc.killGroup();
      });
      const exitCode = await proc.exited;
      table.forget(proc.id);
      const facts = { exit_code: exitCode, duration_ms: Date.now() - started, ...(proc.timedOut ? { timed_out: true } : {}) };
      // Written as it is encoded (exec-answer.ts): no whole-output string, no second copy. The
      // stream is the ProcessExecResult document (Fastify does not serialize a stream).
      const body: unknown = Readable.from(execAnswerPieces(facts, out.stdout, out.stderr));
      return reply.type('application/json; charset=utf-8').send(body as ProcessExecResult);
    });

    route(app, 'POST /browsers/:id/process/spawn', async (req) => {
      const s = await requireSession(sessions, req);
      const b = req.body;
      refuseIdentityChange(b);
      if (!b.allocate_tty && (b.cols !== undefined || b.rows !== undefined))
        throw ApiError.badRequest('cols and rows need allocate_tty: true', [{ code: 'invalid_field', message: 'cols/rows: only valid with allocate_tty' }]);
      const proc = await table.start(s, b, b.allocate_tty ? { tty: { cols: b.cols ?? 80, rows: b.rows ?? 24 } } : {});
      return { process_id: proc.id, pid: proc.pid, started_at: proc.startedAt.toISOString() };
    });

    route(app, 'GET /browsers/:id/processes', async (req) => {
      const ended = await endedSession(sessions, req);
      if (ended) return (await postmortem.read(ended))?.processes ?? [];
      const s = await requireSession(sessions, req);
      return table.list(s.id);
    });

    route(app, 'GET /browsers/:id/process/:process_id/status', async (req) => {
      const s = await requireSession(sessions, req);
      return table.get(s.id, req.params.process_id).status();
    });

    route(app, 'POST /browsers/:id/process/:process_id/stdin', async (req) => {
      const s = await requireSession(sessions, req);
      const proc = table.get(s.id, req.params.process_id);
      const b64 = req.body.data_b64.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) throw ApiError.invalidField('data_b64', 'must be base64');
      if (!proc.running) throw ApiError.conflict('the process has exited', 'process_exited');
      return { written_bytes: proc.write(Buffer.from(b64, 'base64')) };
    });

    route(app, 'GET /browsers/:id/process/:process_id/stdout/stream', async (req, reply) => {
      const s = await requireSession(sessions, req);
      const proc = table.get(s.id, req.params.process_id);
      const release = s.holdActive();
      const sse = openSse(reply);
      const onEnd = () => sse.close();
      s.signal.addEventListener('abort', onEnd, { once: true });
      // A reader behind by more than the cap loses output (counted in `dropped_bytes`), never the engine its memory.
      const backlog = new ReaderBacklog(() => reply.raw.writableLength, ctx.config.execLimits.outputMaxBytes);
      const dropped = () => {
        const n = backlog.takeDropped();
        return n ? { dropped_bytes: n } : {};
      };
      const unsubscribe = proc.subscribe({
        output: (c) => {
          if (backlog.admit(c.data.length)) sse.send({ stream: c.stream, data_b64: c.data.toString('base64'), ...dropped() });
        },
        exit: (code) => {
          sse.send({ event: 'exit', exit_code: code, ...dropped() });
          sse.close();
        },
      });
      sse.onClose(() => {
        unsubscribe();
        s.signal.removeEventListener('abort', onEnd);
        release();
      });
    });

    route(app, 'POST /browsers/:id/process/:process_id/kill', async (req) => {
      const s = await requireSession(sessions, req);
      const proc = table.get(s.id, req.params.process_id);
      proc.signal(req.body.signal);
      return { ok: true };
    });

    route(app, 'POST /browsers/:id/process/:process_id/resize', async (req) => {
      const s = await requireSession(sessions, req);
      const proc = table.get(s.id, req.params.process_id);
      if (!proc.tty) throw ApiError.badRequest('resize needs a process spawned with allocate_tty: true');
      if (!proc.running) throw ApiError.conflict('the process has exited', 'process_exited');
      const b = req.body;
      proc.resize(b.cols, b.rows);
      return { ok: true };
    });
  },
};
