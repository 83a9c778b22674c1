/**
 * Wire schemas of a session's computer controls (`/browsers/{id}/computer/*`, wire §3.7):
 * mouse, keyboard, scroll, clipboard, cursor, screenshot and batches. Coordinates are page CSS
 * pixels. The engine validates and documents with them.
 */
import { Type } from '@sinclair/typebox';

const Coord = Type.Integer({ minimum: 0, maximum: 100_000 });
const Ms = (max: number) => Type.Integer({ minimum: 0, maximum: max });
const HoldKeys = Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 16 }));
const lit = <const T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ClickMouseSchema = Type.Object({
  x: Coord,
  y: Coord,
  button: Type.Optional(lit(['left', 'right', 'middle', 'back', 'forward'])),
  click_type: Type.Optional(lit(['down', 'up', 'click'])),
  hold_keys: HoldKeys,
  num_clicks: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
});
export const MoveMouseSchema = Type.Object({
  x: Coord,
  y: Coord,
  duration_ms: Type.Optional(Ms(60_000)),
  hold_keys: HoldKeys,
  smooth: Type.Optional(Type.Boolean()),
});
export const DragMouseSchema = Type.Object({
  path: Type.Array(Type.Array(Coord, { minItems: 2, maxItems: 2 }), { minItems: 2, maxItems: 1000 }),
  button: Type.Optional(lit(['left', 'middle', 'right'])),
  delay: Type.Optional(Ms(60_000)),
  duration_ms: Type.Optional(Ms(60_000)),
  hold_keys: HoldKeys,
  smooth: Type.Optional(Type.Boolean()),
  step_delay_ms: Type.Optional(Ms(10_000)),
  steps_per_segment: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
export const PressKeySchema = Type.Object({
  keys: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }),
  duration: Type.Optional(Ms(60_000)),
  hold_keys: HoldKeys,
});
export const ScrollSchema = Type.Object({
  x: Coord,
  y: Coord,
  delta_x: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
  delta_y: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
  hold_keys: HoldKeys,
});
export const TypeTextSchema = Type.Object({ text: Type.String({ maxLength: 100_000 }), delay: Type.Optional(Ms(10_000)) });
export const SetCursorSchema = Type.Object({ hidden: Type.Boolean() });
export const SleepActionSchema = Type.Object({ duration_ms: Ms(60_000) });
export const ScreenshotSchema = Type.Object({
  region: Type.Optional(
    Type.Object({ x: Coord, y: Coord, width: Type.Integer({ minimum: 1, maximum: 100_000 }), height: Type.Integer({ minimum: 1, maximum: 100_000 }) }),
  ),
});
export const BatchSchema = Type.Object({
  actions: Type.Array(
    Type.Object({
      type: lit(['click_mouse', 'move_mouse', 'type_text', 'press_key', 'scroll', 'drag_mouse', 'set_cursor', 'sleep']),
      click_mouse: Type.Optional(ClickMouseSchema),
      move_mouse: Type.Optional(MoveMouseSchema),
      type_text: Type.Optional(TypeTextSchema),
      press_key: Type.Optional(PressKeySchema),
      scroll: Type.Optional(ScrollSchema),
      drag_mouse: Type.Optional(DragMouseSchema),
      set_cursor: Type.Optional(SetCursorSchema),
      sleep: Type.Optional(SleepActionSchema),
    }),
    { maxItems: 1000 },
  ),
});

export const ClipboardWriteSchema = Type.Object({ text: Type.String({ maxLength: 1024 * 1024 }) });
export const ClipboardTextSchema = Type.Object({ text: Type.String() });
export const MousePositionSchema = Type.Object({ x: Type.Integer(), y: Type.Integer() });
export const OkSchema = Type.Object({ ok: Type.Boolean() });
