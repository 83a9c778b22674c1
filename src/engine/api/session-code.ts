/**
 * `POST /browsers/{id}/playwright/execute` (wire §3.11): `{code, timeout_sec?}` →
 * `{success, result?, error?, stdout?, stderr?}`. The code runs in a separate executor process
 * (runtime/code-runner) with `page`, `context` (a fresh browser context per call) and
 * `browser`; TypeScript is accepted. Failures of the code — thrown errors, syntax errors,
 * timeouts, non-serializable results — are `success: false` with HTTP 200.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { requireSession } from './session-fs.js';
import { executePlaywright, killAllExecutors } from '../runtime/code-runner/code-runner.js';

const DEFAULT_TIMEOUT_SEC = 60;
const MAX_TIMEOUT_SEC = 600;

const Body = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 1024 * 1024 }),
  timeout_sec: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_SEC })),
});
const Result = Type.Object({
  success: Type.Boolean(),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String()),
  stdout: Type.Optional(Type.String()),
  stderr: Type.Optional(Type.String()),
});

export const sessionCodeFeature: Feature = {
  name: 'session-code',
  register(app: FastifyInstance, ctx: EngineContext) {
    ctx.onStop(() => killAllExecutors());
    app.post(
      '/browsers/:id/playwright/execute',
      { schema: { tags: ['browser playwright'], params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) }), body: Body, response: { 200: Result } } },
      async (req) => {
        const handle = await requireSession(ctx, req);
        const { code, timeout_sec } = req.body as { code: string; timeout_sec?: number };
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
