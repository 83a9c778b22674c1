/**
 * Mouse actions as CDP `Input.dispatchMouseEvent`s on the active page: click (any button,
 * down/up/click, multi-click), move (instant or along a human-like Bézier curve), drag along
 * a path, and scroll (xdotool wheel units). Every position is checked against the screen
 * first, and the pointer state follows so moves during a drag report the held button.
 */
import { sleep, type InputTarget } from './input-target.js';
import { withHeldKeys } from './keyboard-actions.js';
import { NativeDrag } from './native-drag.js';

export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward';
const BUTTON_BIT: Record<MouseButton, number> = { left: 1, right: 2, middle: 4, back: 8, forward: 16 };
/** Pixels per xdotool wheel unit (one notch), as Chromium scrolls on Windows and most Linux setups. */
export const WHEEL_UNIT_PX = 100;

async function moveTo(t: InputTarget, x: number, y: number, button: MouseButton | 'none' = 'none', drag?: NativeDrag): Promise<void> {
  if (!drag?.dragging) await t.page('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button, buttons: t.pointer.buttons, modifiers: t.modifiers });
  t.moved(x, y);
  await drag?.moved(x, y);
}

async function press(t: InputTarget, button: MouseButton, clickCount: number): Promise<void> {
  t.pointer.buttons |= BUTTON_BIT[button];
  const { x, y, buttons } = t.pointer;
  await t.page('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, buttons, clickCount, modifiers: t.modifiers });
}

async function release(t: InputTarget, button: MouseButton, clickCount: number): Promise<void> {
  t.pointer.buttons &= ~BUTTON_BIT[button];
  const { x, y, buttons } = t.pointer;
  await t.page('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, buttons, clickCount, modifiers: t.modifiers });
}

/** Points of a cubic Bézier from a to b with gently random control points (never leaving the screen). */
export function curve(
  a: [number, number],
  b: [number, number],
  steps: number,
  bounds: { width: number; height: number },
  rand = Math.random,
): [number, number][] {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const spread = Math.hypot(dx, dy) * 0.25;
  const ctrl = (f: number): [number, number] => [a[0] + dx * f + (rand() - 0.5) * spread, a[1] + dy * f + (rand() - 0.5) * spread];
  const [c1, c2] = [ctrl(0.3), ctrl(0.7)];
  const clamp = (v: number, max: number) => Math.min(max - 1, Math.max(0, Math.round(v)));
  const out: [number, number][] = [];
  for (let i = 1; i <= steps; i++) {
    const s = i / steps;
    // ease-in-out so the pointer accelerates and slows down like a hand does
    const e = s < 0.5 ? 2 * s * s : 1 - (-2 * s + 2) ** 2 / 2;
    const u = 1 - e;
    const x = u ** 3 * a[0] + 3 * u * u * e * c1[0] + 3 * u * e * e * c2[0] + e ** 3 * b[0];
    const y = u ** 3 * a[1] + 3 * u * u * e * c1[1] + 3 * u * e * e * c2[1] + e ** 3 * b[1];
    out.push([clamp(x, bounds.width), clamp(y, bounds.height)]);
  }
  out[out.length - 1] = [b[0], b[1]];
  return out;
}

/** Default duration of a smooth move: longer for longer distances, within 150–1200 ms. */
function autoDuration(distance: number): number {
  return Math.round(Math.min(1200, Math.max(150, 120 + distance * 0.8)));
}

async function glide(
  t: InputTarget,
  to: [number, number],
  durationMs: number | undefined,
  button: MouseButton | 'none',
  signal?: AbortSignal,
  drag?: NativeDrag,
): Promise<void> {
  const from: [number, number] = [t.pointer.x, t.pointer.y];
  const duration = durationMs ?? autoDuration(Math.hypot(to[0] - from[0], to[1] - from[1]));
  const steps = Math.max(2, Math.min(240, Math.round(duration / 16)));
  const bounds = await t.screen();
  for (const [x, y] of curve(from, to, steps, bounds)) {
    await moveTo(t, x, y, button, drag);
    await sleep(duration / steps, signal);
  }
}

export interface MoveParams {
  x: number;
  y: number;
  smooth?: boolean;
  duration_ms?: number;
  hold_keys?: string[];
}

export async function moveMouse(t: InputTarget, p: MoveParams, signal?: AbortSignal): Promise<void> {
  await t.checkPoints([[p.x, p.y]]);
  await withHeldKeys(t, p.hold_keys, async () => {
    if (p.smooth) await glide(t, [p.x, p.y], p.duration_ms, 'none', signal);
    else await moveTo(t, p.x, p.y);
  });
}

export interface ClickParams {
  x: number;
  y: number;
  button?: MouseButton;
  click_type?: 'down' | 'up' | 'click';
  num_clicks?: number;
  hold_keys?: string[];
}

export async function clickMouse(t: InputTarget, p: ClickParams): Promise<void> {
  await t.checkPoints([[p.x, p.y]]);
  const button = p.button ?? 'left';
  await withHeldKeys(t, p.hold_keys, async () => {
    await moveTo(t, p.x, p.y);
    if (p.click_type === 'down') return press(t, button, 1);
    if (p.click_type === 'up') return release(t, button, 1);
    // clickCount rises with each click, so the page sees dblclick (and triple-click selection).
    for (let i = 1; i <= (p.num_clicks ?? 1); i++) {
      await press(t, button, i);
      await release(t, button, i);
    }
  });
}

export interface DragParams {
  path: number[][];
  button?: 'left' | 'middle' | 'right';
  delay?: number;
  duration_ms?: number;
  hold_keys?: string[];
  smooth?: boolean;
  step_delay_ms?: number;
  steps_per_segment?: number;
}

export async function dragMouse(t: InputTarget, p: DragParams, signal?: AbortSignal): Promise<void> {
  await t.checkPoints(p.path as [number, number][], (i) => `path[${i}]`);
  const button = p.button ?? 'left';
  const [start, ...rest] = p.path as [number, number][];
  await withHeldKeys(t, p.hold_keys, async () => {
    await moveTo(t, start[0], start[1]);
    const drag = await NativeDrag.start(t);
    await press(t, button, 1);
    try {
      await sleep(p.delay ?? 0, signal);
      if (p.smooth) {
        const total = rest.reduce((sum, pt, i) => sum + Math.hypot(pt[0] - (i ? rest[i - 1][0] : start[0]), pt[1] - (i ? rest[i - 1][1] : start[1])), 0);
        const duration = p.duration_ms ?? autoDuration(total);
        for (const pt of rest) {
          const len = Math.hypot(pt[0] - t.pointer.x, pt[1] - t.pointer.y);
          await glide(t, pt, total > 0 ? (duration * len) / total : duration / rest.length, button, signal, drag);
        }
      } else {
        const steps = p.steps_per_segment ?? 10;
        for (const pt of rest) {
          const [fx, fy] = [t.pointer.x, t.pointer.y];
          for (let s = 1; s <= steps; s++) {
            await moveTo(t, Math.round(fx + ((pt[0] - fx) * s) / steps), Math.round(fy + ((pt[1] - fy) * s) / steps), button, drag);
            await sleep(p.step_delay_ms ?? 0, signal);
          }
        }
      }
    } finally {
      await drag.drop(t.pointer.x, t.pointer.y).catch(() => {});
      await release(t, button, 1);
      await drag.dispose();
    }
  });
}

export interface ScrollParams {
  x: number;
  y: number;
  delta_x?: number;
  delta_y?: number;
  hold_keys?: string[];
}

export async function scroll(t: InputTarget, p: ScrollParams): Promise<void> {
  await t.checkPoints([[p.x, p.y]]);
  await withHeldKeys(t, p.hold_keys, async () => {
    await moveTo(t, p.x, p.y);
    const [dx, dy] = [p.delta_x ?? 0, p.delta_y ?? 0];
    // One wheel event per notch, as a real wheel (and xdotool's button 4–7 clicks) produce.
    const notches = Math.max(Math.abs(dx), Math.abs(dy));
    for (let i = 0; i < notches; i++) {
      const stepX = i < Math.abs(dx) ? Math.sign(dx) * WHEEL_UNIT_PX : 0;
      const stepY = i < Math.abs(dy) ? Math.sign(dy) * WHEEL_UNIT_PX : 0;
      await t.page('Input.dispatchMouseEvent', { type: 'mouseWheel', x: p.x, y: p.y, deltaX: stepX, deltaY: stepY, modifiers: t.modifiers });
    }
  });
}
