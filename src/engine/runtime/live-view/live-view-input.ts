/**
 * Input a live-view client sends, validated and turned into CDP `Input.*` commands for the
 * page on screen. Coordinates arrive in page CSS pixels (the client scales from the canvas
 * using the frame metadata) and are clamped; anything malformed is dropped, never forwarded.
 */
import type { Protocol } from 'devtools-protocol';
import type { CdpCommandOf } from '../chromium/cdp-types.js';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Coord = Type.Number({ minimum: -100_000, maximum: 100_000 });
const Modifiers = Type.Optional(Type.Integer({ minimum: 0, maximum: 15 }));
const Button = Type.Union((['none', 'left', 'middle', 'right', 'back', 'forward'] as const).map((b) => Type.Literal(b)));

const MouseMsg = Type.Object({
  type: Type.Literal('mouse'),
  action: Type.Union([Type.Literal('move'), Type.Literal('down'), Type.Literal('up'), Type.Literal('click')]),
  x: Coord,
  y: Coord,
  button: Type.Optional(Button),
  buttons: Type.Optional(Type.Integer({ minimum: 0, maximum: 31 })),
  clickCount: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
  modifiers: Modifiers,
});
const WheelMsg = Type.Object({
  type: Type.Literal('wheel'),
  x: Coord,
  y: Coord,
  deltaX: Type.Number({ minimum: -10_000, maximum: 10_000 }),
  deltaY: Type.Number({ minimum: -10_000, maximum: 10_000 }),
  modifiers: Modifiers,
});
const KeyMsg = Type.Object({
  type: Type.Literal('key'),
  action: Type.Union([Type.Literal('down'), Type.Literal('up')]),
  key: Type.String({ minLength: 1, maxLength: 32 }),
  code: Type.Optional(Type.String({ maxLength: 32 })),
  keyCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  location: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
  repeat: Type.Optional(Type.Boolean()),
  modifiers: Modifiers,
});
const TextMsg = Type.Object({ type: Type.Literal('text'), text: Type.String({ minLength: 1, maxLength: 10_000 }) });

export const InputMessage = Type.Union([MouseMsg, WheelMsg, KeyMsg, TextMsg]);
export type InputMessage = Static<typeof InputMessage>;

/** What live-view input becomes: page input commands only. */
export type CdpCommand = CdpCommandOf<'Input.dispatchMouseEvent' | 'Input.dispatchKeyEvent' | 'Input.insertText'>;

export function parseInput(raw: unknown): InputMessage | undefined {
  return Value.Check(InputMessage, raw) ? raw : undefined;
}

/** Keys whose keydown types a character besides the printable ones. */
const KEY_TEXT: Record<string, string> = { Enter: '\r' };

/** The CDP commands for one input message, in order. */
export function toCdp(m: InputMessage): CdpCommand[] {
  switch (m.type) {
    case 'mouse': {
      const base: Omit<Protocol.Input.DispatchMouseEventRequest, 'type'> = {
        x: m.x,
        y: m.y,
        modifiers: m.modifiers ?? 0,
        button: m.button ?? 'none',
        buttons: m.buttons ?? 0,
      };
      const clickCount = m.clickCount ?? 1;
      if (m.action === 'move') return [{ method: 'Input.dispatchMouseEvent', params: { ...base, type: 'mouseMoved' } }];
      if (m.action === 'down') return [{ method: 'Input.dispatchMouseEvent', params: { ...base, type: 'mousePressed', clickCount } }];
      if (m.action === 'up') return [{ method: 'Input.dispatchMouseEvent', params: { ...base, type: 'mouseReleased', clickCount } }];
      const button: Protocol.Input.MouseButton = m.button && m.button !== 'none' ? m.button : 'left';
      return [
        { method: 'Input.dispatchMouseEvent', params: { ...base, button, type: 'mousePressed', clickCount } },
        { method: 'Input.dispatchMouseEvent', params: { ...base, button, type: 'mouseReleased', clickCount } },
      ];
    }
    case 'wheel':
      return [
        { method: 'Input.dispatchMouseEvent', params: { type: 'mouseWheel', x: m.x, y: m.y, deltaX: m.deltaX, deltaY: m.deltaY, modifiers: m.modifiers ?? 0 } },
      ];
    case 'key': {
      const modifiers = m.modifiers ?? 0;
      // Ctrl/Alt/Meta chords are shortcuts, not typing.
      const typing = (modifiers & (1 | 2 | 4)) === 0;
      const text = m.action === 'down' && typing ? (m.key.length === 1 ? m.key : KEY_TEXT[m.key]) : undefined;
      const params: Protocol.Input.DispatchKeyEventRequest = {
        type: m.action === 'up' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown',
        key: m.key,
        code: m.code ?? '',
        modifiers,
        windowsVirtualKeyCode: m.keyCode ?? 0,
        nativeVirtualKeyCode: m.keyCode ?? 0,
        autoRepeat: m.repeat ?? false,
        location: m.location ?? 0,
      };
      if (text) {
        params.text = text;
        params.unmodifiedText = text;
      }
      return [{ method: 'Input.dispatchKeyEvent', params }];
    }
    case 'text':
      return [{ method: 'Input.insertText', params: { text: m.text } }];
  }
}
