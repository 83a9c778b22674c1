/**
 * `POST /browsers/{id}/playwright/execute` (wire §3.11): `{code, timeout_sec?}` →
 * `{success, result?, error?, stdout?, stderr?}`. The code runs in a separate executor process
 * (runtime/code-runner) with `page`, `context` (a fresh browser context per call) and
 * `browser`; TypeScript is accepted. Failures of the code — thrown errors, syntax errors,
 * timeouts, non-serializable results — are `success: false` with HTTP 200.
 */
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { requireSession } from './session-fs.js';
import { executePlaywright, killAllExecutors } from '../runtime/code-runner/code-runner.js';
import { CodeIdParamSchema, ExecuteCodeSchema, ExecuteResultSchema } from '../../shared/wire/session-code.js';

const DEFAULT_TIMEOUT_SEC = 60;
export const sessionCodeFeature: Feature = {
  name: 'session-code',
  register(app, ctx: EngineContext) {
    ctx.onStop(() => killAllExecutors());
    app.post(
      '/browsers/:id/playwright/execute',
      { schema: { tags: ['browser playwright'], params: CodeIdParamSchema, body: ExecuteCodeSchema, response: { 200: ExecuteResultSchema } } },
      async (req) => {
        const handle = await requireSession(ctx, req);
        const { code, timeout_sec } = req.body;
        // Keep the session alive while its code runs (it may run longer than the inactivity timeout).
        const release = handle.holdActive();
        try {
          return await executePlaywright(handle, code, timeout_sec ?? DEFAULT_TIMEOUT_SEC, [ctx.config.dataDir]);
        } finally {
          release();
        }
      },
    );
  },
};
