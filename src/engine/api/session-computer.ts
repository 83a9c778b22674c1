/**
 * `/browsers/{id}/computer/*` (wire §3.7): mouse, keyboard, scroll, screenshot, clipboard,
 * cursor visibility and batches, all POST. Input goes to the session's active page through
 * CDP (headless and headful alike) and is serialized per session. Coordinates are page CSS
 * pixels and must lie on the screen (the session's viewport); unknown keysyms, buttons and
 * out-of-screen points are 400s naming the field.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { requireSession } from './session-fs.js';
import { SessionComputer, BatchError, type BatchAction } from '../runtime/computer/session-computer.js';
import { InputError, type CursorSink } from '../runtime/computer/input-target.js';
import { screenshot, type Region } from '../runtime/computer/screenshot.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const Coord = Type.Integer({ minimum: 0, maximum: 100_000 });
const Ms = (max: number) => Type.Integer({ minimum: 0, maximum: max });
const HoldKeys = Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 16 }));
const lit = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const Click = Type.Object({
  x: Coord,
  y: Coord,
  button: Type.Optional(lit(['left', 'right', 'middle', 'back', 'forward'])),
  click_type: Type.Optional(lit(['down', 'up', 'click'])),
  hold_keys: HoldKeys,
  num_clicks: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
});
const Move = Type.Object({ x: Coord, y: Coord, duration_ms: Type.Optional(Ms(60_000)), hold_keys: HoldKeys, smooth: Type.Optional(Type.Boolean()) });
const Drag = Type.Object({
  path: Type.Array(Type.Array(Coord, { minItems: 2, maxItems: 2 }), { minItems: 2, maxItems: 1000 }),
  button: Type.Optional(lit(['left', 'middle', 'right'])),
  delay: Type.Optional(Ms(60_000)),
  duration_ms: Type.Optional(Ms(60_000)),
  hold_keys: HoldKeys,
  smooth: Type.Optional(Type.Boolean()),
  step_delay_ms: Type.Optional(Ms(10_000)),
  steps_per_segment: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
const PressKey = Type.Object({ keys: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }), duration: Type.Optional(Ms(60_000)), hold_keys: HoldKeys });
const Scroll = Type.Object({ x: Coord, y: Coord, delta_x: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })), delta_y: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })), hold_keys: HoldKeys });
const TypeText = Type.Object({ text: Type.String({ maxLength: 100_000 }), delay: Type.Optional(Ms(10_000)) });
const Cursor = Type.Object({ hidden: Type.Boolean() });
const Sleep = Type.Object({ duration_ms: Ms(60_000) });
const Screenshot = Type.Object({ region: Type.Optional(Type.Object({ x: Coord, y: Coord, width: Type.Integer({ minimum: 1, maximum: 100_000 }), height: Type.Integer({ minimum: 1, maximum: 100_000 }) })) });
const Batch = Type.Object({
  actions: Type.Array(
    Type.Object({
      type: lit(['click_mouse', 'move_mouse', 'type_text', 'press_key', 'scroll', 'drag_mouse', 'set_cursor', 'sleep']),
      click_mouse: Type.Optional(Click),
      move_mouse: Type.Optional(Move),
      type_text: Type.Optional(TypeText),
      press_key: Type.Optional(PressKey),
      scroll: Type.Optional(Scroll),
      drag_mouse: Type.Optional(Drag),
      set_cursor: Type.Optional(Cursor),
      sleep: Type.Optional(Sleep),
    }),
    { maxItems: 1000 },
  ),
});

/** Client mistakes are 400s; a browser that cannot take input right now is a 409/502. */
function toApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof InputError) {
    if (/no open page/.test(err.message)) return ApiError.conflict(`the browser has no open page to send input to`, 'no_page');
    return err.field ? ApiError.invalidField(err.field, err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message) : ApiError.badRequest(err.message);
  }
  if (err instanceof BatchError) {
    const inner = toApiError(err.cause);
    const status = inner instanceof ApiError ? inner.status : 502;
    return new ApiError(status, status === 400 ? 'invalid_request' : 'batch_action_failed', err.message, [{ code: 'batch_action_failed', message: `actions[${err.index}] (${err.type}): ${err.cause.message}` }]);
  }
  return new ApiError(502, 'browser_error', `the browser did not accept the input: ${(err as Error).message}`);
}

export const sessionComputerFeature: Feature = {
  name: 'session-computer',
  register(app: FastifyInstance, ctx: EngineContext) {
    const tags = ['browser computer'];
    const base = '/browsers/:id/computer';
    const computer = async (req: FastifyRequest) => SessionComputer.of(await requireSession(ctx, req), ctx.services.liveView as CursorSink | undefined);

    const action = (path: string, body: TSchema, run: (c: SessionComputer, b: any) => Promise<unknown>) =>
      app.post(`${base}/${path}`, { schema: { tags, params: IdParam, body } }, async (req, reply) => {
        const c = await computer(req);
        await run(c, req.body).catch((err) => {
          throw toApiError(err);
        });
        return reply.status(204).send();
      });

    action('click_mouse', Click, (c, b) => c.click(b));
    action('move_mouse', Move, (c, b) => c.move(b));
    action('drag_mouse', Drag, (c, b) => c.drag(b));
    action('type', TypeText, (c, b) => c.type(b));
    action('press_key', PressKey, (c, b) => c.pressKey(b));
    action('scroll', Scroll, (c, b) => c.scroll(b));
    action('batch', Batch, (c, b) => c.batch((b as { actions: BatchAction[] }).actions));
    action('clipboard/write', Type.Object({ text: Type.String({ maxLength: 1024 * 1024 }) }), (c, b) => c.clipboard.write(b.text));

    app.post(`${base}/clipboard/read`, { schema: { tags, params: IdParam, response: { 200: Type.Object({ text: Type.String() }) } } }, async (req) => {
      const c = await computer(req);
      return { text: await c.clipboard.read() };
    });

    app.post(`${base}/get_mouse_position`, { schema: { tags, params: IdParam, response: { 200: Type.Object({ x: Type.Integer(), y: Type.Integer() }) } } }, async (req) => {
      const { x, y } = (await computer(req)).target.pointer;
      return { x, y };
    });

    app.post(`${base}/cursor`, { schema: { tags, params: IdParam, body: Cursor, response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async (req) => {
      (await computer(req)).target.setCursorHidden((req.body as { hidden: boolean }).hidden);
      return { ok: true };
    });

    app.post(`${base}/screenshot`, { schema: { tags, params: IdParam, body: Screenshot } }, async (req, reply) => {
      const c = await computer(req);
      const png = await c.exclusive(() => screenshot(c.target, (req.body as { region?: Region }).region)).catch((err) => {
        throw toApiError(err);
      });
      return reply.type('image/png').header('cache-control', 'no-store').send(png);
    });
  },
};
