/**
 * `POST /browsers/{id}/repl` (spec §9): `{code, reset?, timeout_sec?}` → BrowserReplResult.
 * The code runs as a new cell of the session's persistent, jailed Node REPL
 * (runtime/code-runner/session-repl.ts); failures of the code — exceptions, syntax errors,
 * timeouts, crashes — are `success: false` with HTTP 200. `code` may be empty only with `reset`.
 */
import type { App } from '../feature.js';
import type { EngineContext } from '../context.js';
import type { SessionRegistry } from '../runtime/session/session-handle.js';
import { requireSession } from './session-fs.js';
import { ApiError } from '../http/api-error.js';
import { SessionRepl } from '../runtime/code-runner/session-repl.js';
import { sessionRunners } from './session-runners.js';
import { route } from '../route.js';

const DEFAULT_TIMEOUT_SEC = 60;

/** Registered by the session-code feature (code execution: Playwright executors and the REPL). */
export function registerRepl(app: App, ctx: EngineContext, sessions: SessionRegistry): void {
  // The REPL ends with its session (engine stop ends every session): no stop hook of its own.
  const { repl: replSlot } = sessionRunners(ctx);
  route(app, 'POST /browsers/:id/repl', async (req) => {
    const handle = await requireSession(sessions, req);
    const { code, reset, timeout_sec } = req.body;
    if (code === '' && !reset) throw ApiError.invalidField('code', 'must not be empty (unless reset is true)');
    const repl = await SessionRepl.of(handle, replSlot);
    const release = handle.holdActive();
    try {
      return await repl.run(code, timeout_sec ?? DEFAULT_TIMEOUT_SEC, reset ?? false);
    } finally {
      release();
    }
  });
}
