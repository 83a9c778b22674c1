/**
 * `/browsers/{id}/computer/*` (wire §3.7): mouse, keyboard, scroll, screenshot, clipboard,
 * cursor visibility and batches, all POST. Input goes to the session's active page through
 * CDP (headless and headful alike) and is serialized per session. Coordinates are page CSS
 * pixels and must lie on the screen (the session's viewport); unknown keysyms, buttons and
 * out-of-screen points are 400s naming the field.
 */
import type { FastifyReply } from 'fastify';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { requireSession, type SessionRequest } from './session-fs.js';
import { SessionComputer, BatchError, sessionComputerSlot } from '../runtime/computer/session-computer.js';
import { InputError } from '../runtime/computer/input-target.js';
import { screenshot } from '../runtime/computer/screenshot.js';
import { route } from '../route.js';

/** Client mistakes are 400s; a browser that cannot take input right now is a 409/502. */
function toApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof InputError) {
    if (/no open page/.test(err.message)) return ApiError.conflict(`the browser has no open page to send input to`, 'no_page');
    return err.field
      ? ApiError.invalidField(err.field, err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message)
      : ApiError.badRequest(err.message);
  }
  if (err instanceof BatchError) {
    const inner = toApiError(err.cause);
    const status = inner instanceof ApiError ? inner.status : 502;
    return new ApiError(status, status === 400 ? 'invalid_request' : 'batch_action_failed', err.message, [
      { code: 'batch_action_failed', message: `actions[${err.index}] (${err.type}): ${err.cause.message}` },
    ]);
  }
  return new ApiError(502, 'browser_error', `the browser did not accept the input: ${(err as Error).message}`);
}

export const sessionComputerFeature: Feature<'sessions' | 'liveView'> = {
  name: 'session-computer',
  register(app, _ctx, { sessions, liveView }) {
    const slot = sessionComputerSlot(liveView);
    const computer = async (req: SessionRequest) => (await requireSession(sessions, req)).scope.get(slot);

    // The input actions answer 204 once the browser took them; each body reaches its action
    // validated against (and typed from) its own route's schema.
    const act = async (req: SessionRequest, reply: FastifyReply, run: (c: SessionComputer) => Promise<unknown>) => {
      const c = await computer(req);
      await run(c).catch((err) => {
        throw toApiError(err);
      });
      return reply.status(204).send();
    };
    route(app, 'POST /browsers/:id/computer/click_mouse', (req, reply) => act(req, reply, (c) => c.click(req.body)));
    route(app, 'POST /browsers/:id/computer/move_mouse', (req, reply) => act(req, reply, (c) => c.move(req.body)));
    route(app, 'POST /browsers/:id/computer/drag_mouse', (req, reply) => act(req, reply, (c) => c.drag(req.body)));
    route(app, 'POST /browsers/:id/computer/type', (req, reply) => act(req, reply, (c) => c.type(req.body)));
    route(app, 'POST /browsers/:id/computer/press_key', (req, reply) => act(req, reply, (c) => c.pressKey(req.body)));
    route(app, 'POST /browsers/:id/computer/scroll', (req, reply) => act(req, reply, (c) => c.scroll(req.body)));
    route(app, 'POST /browsers/:id/computer/batch', (req, reply) => act(req, reply, (c) => c.batch(req.body.actions)));
    route(app, 'POST /browsers/:id/computer/clipboard/write', (req, reply) => act(req, reply, (c) => c.clipboard.write(req.body.text)));

    route(app, 'POST /browsers/:id/computer/clipboard/read', async (req) => {
      const c = await computer(req);
      return { text: await c.clipboard.read() };
    });

    route(app, 'POST /browsers/:id/computer/get_mouse_position', async (req) => {
      const { x, y } = (await computer(req)).target.pointer;
      return { x, y };
    });

    route(app, 'POST /browsers/:id/computer/cursor', async (req) => {
      (await computer(req)).target.setCursorHidden(req.body.hidden);
      return { ok: true };
    });

    route(app, 'POST /browsers/:id/computer/screenshot', async (req, reply) => {
      const c = await computer(req);
      const png = await c
        .exclusive(() => screenshot(c.target, req.body.region))
        .catch((err) => {
          throw toApiError(err);
        });
      return reply.type('image/png').header('cache-control', 'no-store').send(png);
    });
  },
};
