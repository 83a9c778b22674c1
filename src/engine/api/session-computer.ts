/**
 * `/browsers/{id}/computer/*` (wire §3.7): mouse, keyboard, scroll, screenshot, clipboard,
 * cursor visibility and batches, all POST. Input goes to the session's active page through
 * CDP (headless and headful alike) and is serialized per session. Coordinates are page CSS
 * pixels and must lie on the screen (the session's viewport); unknown keysyms, buttons and
 * out-of-screen points are 400s naming the field.
 */
import type { Static } from '@sinclair/typebox';
import type { RouteTable } from '../../shared/wire/routes/route-table.js';
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

/** The input actions: each answers 204 once the browser took it (their bodies are in the route table). */
type ComputerAction = 'click_mouse' | 'move_mouse' | 'drag_mouse' | 'type' | 'press_key' | 'scroll' | 'batch' | 'clipboard/write';
/** The validated body of a computer action's route. */
type ActionBody<P extends ComputerAction> = Static<RouteTable[`POST /browsers/:id/computer/${P}`]['schema']['body']>;

export const sessionComputerFeature: Feature<'sessions' | 'liveView'> = {
  name: 'session-computer',
  register(app, _ctx, { sessions, liveView }) {
    const slot = sessionComputerSlot(liveView);
    const computer = async (req: SessionRequest) => (await requireSession(sessions, req)).scope.get(slot);

    // The body reaches `run` validated against its route's schema, typed as its Static.
    const action = <P extends ComputerAction>(path: P, run: (c: SessionComputer, b: ActionBody<P>) => Promise<unknown>) =>
      route(app, `POST /browsers/:id/computer/${path}` as `POST /browsers/:id/computer/${ComputerAction}`, async (req, reply) => {
        const c = await computer(req);
        await run(c, req.body as ActionBody<P>).catch((err) => {
          throw toApiError(err);
        });
        return reply.status(204).send();
      });

    action('click_mouse', (c, b) => c.click(b));
    action('move_mouse', (c, b) => c.move(b));
    action('drag_mouse', (c, b) => c.drag(b));
    action('type', (c, b) => c.type(b));
    action('press_key', (c, b) => c.pressKey(b));
    action('scroll', (c, b) => c.scroll(b));
    action('batch', (c, b) => c.batch(b.actions));
    action('clipboard/write', (c, b) => c.clipboard.write(b.text));

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
