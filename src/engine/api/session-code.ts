/**
 * Playwright execution (wire §3.11, spec §7). `POST /browsers/{id}/playwright/execute`:
 * `{code, timeout_sec?, executor?, trace?}` → `{success, result?, error?, stdout?, stderr?,
 * tab?, trace_path?}`. The code runs on one of the session's executors (runtime/code-runner:
 * long-lived jailed processes; `default` binds `page` to the browser's active tab, a named one
 * to its own background tab) with `page`, `context` and `browser`; TypeScript is accepted.
 * Failures of the code — thrown errors, syntax errors, timeouts, crashes, non-serializable
 * results — are `success: false` with HTTP 200; a 9th named executor is 409 with the list; a
 * call over the session's or engine's exec/execute bound (`services.callLimits`) is 429.
 * `GET …/playwright/executors` lists them; `DELETE …/playwright/executors/{name}` deletes one
 * (`default`: restarts it). The REPL's route (`/browsers/{id}/repl`) registers here too.
 */
import type { Feature } from '../feature.js';
import { requireSession } from './session-fs.js';
import { executePlaywright } from '../runtime/code-runner/code-runner.js';
import { ExecutorLimitError } from '../runtime/code-runner/session-executors.js';
import { sessionRunners } from './session-runners.js';
import { ApiError } from '../http/api-error.js';
import { registerRepl } from './session-repl.js';
import { route } from '../route.js';

const DEFAULT_TIMEOUT_SEC = 60;

export const sessionCodeFeature: Feature<'sessions' | 'callLimits'> = {
  name: 'session-code',
  register(app, ctx, { sessions, callLimits }) {
    // Executors end with their session (engine stop ends every session): no stop hook of their own.
    registerRepl(app, ctx, sessions);
    const { executors } = sessionRunners(ctx);
    route(app, 'POST /browsers/:id/playwright/execute', async (req, reply) => {
      const handle = await requireSession(sessions, req);
      const { code, timeout_sec, executor, trace } = req.body;
      // One of the session's exec/execute slots while it runs or waits on its executor: 429 over the bound.
      const slot = callLimits.acquire(handle.id, 'execute');
      // Keep the session alive while its code runs (it may run longer than the inactivity timeout).
      const release = handle.holdActive();
      try {
        return await executePlaywright(handle, { code, timeoutSec: timeout_sec ?? DEFAULT_TIMEOUT_SEC, executor, trace }, executors);
      } catch (err) {
        if (!(err instanceof ExecutorLimitError)) throw err;
        // Kernel's ExecutorLimitError body ({executors, message}) inside our Error object.
        return reply.code(409).header('x-should-retry', 'false').send({ code: err.code, message: err.message, details: err.details, executors: err.executors });
      } finally {
        release();
        slot();
      }
    });
    route(app, 'GET /browsers/:id/playwright/executors', async (req) => {
      const handle = await requireSession(sessions, req);
      return { executors: await handle.scope.get(executors).list() };
    });
    route(app, 'DELETE /browsers/:id/playwright/executors/:name', async (req, reply) => {
      const handle = await requireSession(sessions, req);
      const deleted = await handle.scope.get(executors).delete(req.params.name, req.query.close_tab ?? true);
      if (!deleted) throw ApiError.notFound('executor', req.params.name);
      return reply.code(204).send();
    });
  },
};
