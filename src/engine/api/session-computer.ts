/**
 * `/browsers/{id}/computer/*` (wire §3.7): mouse, keyboard, scroll, screenshot, clipboard,
 * cursor visibility and batches, all POST. Input goes to the session's active page through
 * CDP (headless and headful alike) and is serialized per session. Coordinates are page CSS
 * pixels and must lie on the screen (the session's viewport); unknown keysyms, buttons and
 * out-of-screen points are 400s naming the field.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { requireSession, type SessionRequest } from './session-fs.js';
import { SessionComputer, BatchError, sessionComputerSlot } from '../runtime/computer/session-computer.js';
import { InputError } from '../runtime/computer/input-target.js';
import { screenshot } from '../runtime/computer/screenshot.js';
import {
  BatchSchema,
  ClickMouseSchema,
  ClipboardTextSchema,
  ClipboardWriteSchema,
  ComputerIdParamSchema as IdParam,
  DragMouseSchema,
  MousePositionSchema,
  MoveMouseSchema,
  OkSchema,
  PressKeySchema,
  ScreenshotSchema,
  ScrollSchema,
  SetCursorSchema,
  TypeTextSchema,
} from '../../shared/wire/session-computer.js';

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
    const tags = ['browser computer'];
    const base = '/browsers/:id/computer';
    const slot = sessionComputerSlot(liveView);
    const computer = async (req: SessionRequest) => (await requireSession(sessions, req)).scope.get(slot);

    // The body reaches `run` validated against `body`, typed as its Static.
    const action = <S extends TSchema>(path: string, body: S, run: (c: SessionComputer, b: Static<S>) => Promise<unknown>) =>
      app.post(`${base}/${path}`, { schema: { tags, params: IdParam, body } }, async (req, reply) => {
        const c = await computer(req);
        await run(c, req.body).catch((err) => {
          throw toApiError(err);
        });
        return reply.status(204).send();
      });

    action('click_mouse', ClickMouseSchema, (c, b) => c.click(b));
    action('move_mouse', MoveMouseSchema, (c, b) => c.move(b));
    action('drag_mouse', DragMouseSchema, (c, b) => c.drag(b));
    action('type', TypeTextSchema, (c, b) => c.type(b));
    action('press_key', PressKeySchema, (c, b) => c.pressKey(b));
    action('scroll', ScrollSchema, (c, b) => c.scroll(b));
    action('batch', BatchSchema, (c, b) => c.batch(b.actions));
    action('clipboard/write', ClipboardWriteSchema, (c, b) => c.clipboard.write(b.text));

    app.post(`${base}/clipboard/read`, { schema: { tags, params: IdParam, response: { 200: ClipboardTextSchema } } }, async (req) => {
      const c = await computer(req);
      return { text: await c.clipboard.read() };
    });

    app.post(`${base}/get_mouse_position`, { schema: { tags, params: IdParam, response: { 200: MousePositionSchema } } }, async (req) => {
      const { x, y } = (await computer(req)).target.pointer;
      return { x, y };
    });

    app.post(`${base}/cursor`, { schema: { tags, params: IdParam, body: SetCursorSchema, response: { 200: OkSchema } } }, async (req) => {
      (await computer(req)).target.setCursorHidden(req.body.hidden);
      return { ok: true };
    });

    app.post(`${base}/screenshot`, { schema: { tags, params: IdParam, body: ScreenshotSchema } }, async (req, reply) => {
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
