/**
 * A session's computer: the input target, clipboard and one mutex through which every input
 * of the session passes, so concurrent requests never interleave their events (a batch holds
 * the mutex for all its actions). Created on first use, dropped when the session ends.
 */
import type { SessionHandle } from '../session/session-handle.js';
import type { Slot } from '../session/session-scope.js';
import { SessionCdpSlot } from '../cdp/session-cdp.js';
import { SessionClipboard } from './clipboard.js';
import { InputError, InputTarget, sleep, type CursorSink } from './input-target.js';
import { pressKey, typeText, type PressKeyParams, type TypeParams } from './keyboard-actions.js';
import { clickMouse, dragMouse, moveMouse, scroll, type ClickParams, type DragParams, type MoveParams, type ScrollParams } from './mouse-actions.js';

export type BatchAction =
  | { type: 'click_mouse'; click_mouse?: ClickParams }
  | { type: 'move_mouse'; move_mouse?: MoveParams }
  | { type: 'type_text'; type_text?: TypeParams }
  | { type: 'press_key'; press_key?: PressKeyParams }
  | { type: 'scroll'; scroll?: ScrollParams }
  | { type: 'drag_mouse'; drag_mouse?: DragParams }
  | { type: 'set_cursor'; set_cursor?: { hidden: boolean } }
  | { type: 'sleep'; sleep?: { duration_ms: number } };

/** A batch action failed: which one, and why. */
export class BatchError extends Error {
  constructor(
    readonly index: number,
    readonly type: string,
    readonly cause: Error,
  ) {
    super(`actions[${index}] (${type}) failed: ${cause.message}; later actions were not run`);
  }
}

export class SessionComputer {
  readonly target: InputTarget;
  readonly clipboard: SessionClipboard;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly handle: SessionHandle,
    cursor?: CursorSink,
  ) {
    const cdp = handle.scope.get(SessionCdpSlot);
    this.target = new InputTarget(handle, cdp, cursor);
    this.clipboard = new SessionClipboard(cdp);
    cdp.onReset(() => {
      // A restarted browser has no buttons or keys held.
      this.target.pointer.buttons = 0;
      this.target.modifiers = 0;
    });
  }

  /** Runs `fn` alone: inputs of one session are serialized. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    this.handle.touch();
    return run;
  }

  click = (p: ClickParams) => this.exclusive(() => clickMouse(this.target, p));
  move = (p: MoveParams) => this.exclusive(() => moveMouse(this.target, p, this.handle.signal));
  drag = (p: DragParams) => this.exclusive(() => dragMouse(this.target, p, this.handle.signal));
  type = (p: TypeParams) => this.exclusive(() => typeText(this.target, p, this.handle.signal));
  pressKey = (p: PressKeyParams) => this.exclusive(() => pressKey(this.target, p, this.handle.signal));
  scroll = (p: ScrollParams) => this.exclusive(() => scroll(this.target, p));

  /** Runs the actions in order under one lock; stops at the first failure. */
  batch(actions: BatchAction[]): Promise<void> {
    return this.exclusive(async () => {
      for (const [i, a] of actions.entries()) {
        try {
          await this.runAction(a);
        } catch (err) {
          throw new BatchError(i, a.type, err as Error);
        }
      }
    });
  }

  private async runAction(a: BatchAction): Promise<void> {
    const params = (a as Record<string, unknown>)[a.type];
    if (params === undefined || params === null) throw new InputError(`the "${a.type}" field with this action's parameters is missing`);
    const t = this.target;
    const signal = this.handle.signal;
    switch (a.type) {
      case 'click_mouse':
        return clickMouse(t, params as ClickParams);
      case 'move_mouse':
        return moveMouse(t, params as MoveParams, signal);
      case 'type_text':
        return typeText(t, params as TypeParams, signal);
      case 'press_key':
        return pressKey(t, params as PressKeyParams, signal);
      case 'scroll':
        return scroll(t, params as ScrollParams);
      case 'drag_mouse':
        return dragMouse(t, params as DragParams, signal);
      case 'set_cursor':
        return t.setCursorHidden((params as { hidden: boolean }).hidden);
      case 'sleep':
        return sleep((params as { duration_ms: number }).duration_ms, signal);
    }
  }
}

/**
 * The slot of a session's computer whose cursor moves show on `cursor` (the engine's live view):
 * made once per engine, where the live view is at hand (api/session-computer.ts); the computer
 * is made on a session's first input and its clipboard page closed with the session.
 */
export function sessionComputerSlot(cursor?: CursorSink): Slot<SessionComputer> {
  return { name: 'session-computer', create: (scope) => new SessionComputer(scope.handle, cursor), close: (c) => c.clipboard.close() };
}
