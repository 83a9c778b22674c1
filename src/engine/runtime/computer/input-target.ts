/**
 * What computer actions act on: the session's active page (via the shared session CDP
 * client), the screen size coordinates are checked against, and the per-session pointer
 * state (position, pressed buttons) that `get_mouse_position` reports and the live view's
 * cursor overlay follows. Input errors a client caused are `InputError`s (→ 400).
 */
import type { CdpMethod, CdpParams, CdpResult } from '../chromium/cdp-types.js';
import type { SessionHandle } from '../session/session-handle.js';
import { SessionCdp } from '../cdp/session-cdp.js';

export class InputError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The slice of the live-view service computer actions use (cursor overlay). */
export interface CursorSink {
  setCursor(session: SessionHandle, change: { visible?: boolean; x?: number; y?: number }): unknown;
}

export interface PointerState {
  x: number;
  y: number;
  /** CDP `buttons` bitmask of the buttons held down. */
  buttons: number;
}

export class InputTarget {
  readonly pointer: PointerState = { x: 0, y: 0, buttons: 0 };
  /** Modifier bitmask from `hold_keys` currently held. */
  modifiers = 0;

  constructor(
    readonly handle: SessionHandle,
    readonly cdp: SessionCdp,
    private readonly cursor?: CursorSink,
  ) {}

  /** Sends a command to the active page. */
  async page<M extends CdpMethod>(method: M, params: CdpParams<M>, timeoutMs?: number): Promise<CdpResult<M>> {
    let page;
    try {
      page = await this.cdp.activePage();
    } catch (err) {
      throw new InputError((err as Error).message);
    }
    return this.cdp.send(method, params, page.sessionId, timeoutMs);
  }

  /**
   * The screen input lands on: the active page's viewport in CSS pixels (what screenshots
   * show). Read from the page because a browser window can be larger than its viewport.
   */
  async screen(): Promise<{ width: number; height: number }> {
    const r = await this.page('Runtime.evaluate', {
      expression: '[innerWidth, innerHeight]',
      returnByValue: true,
    }).catch(() => undefined);
    const v = r?.result.value;
    if (Array.isArray(v) && v[0] > 0 && v[1] > 0) return { width: v[0], height: v[1] };
    return this.handle.viewport;
  }

  /** Rejects coordinates outside the screen. */
  async checkPoints(points: [number, number][], field?: (i: number) => string): Promise<void> {
    const { width, height } = await this.screen();
    points.forEach(([x, y], i) => {
      const name = field?.(i) ?? '';
      const at = name ? `${name}: ` : '';
      if (!Number.isInteger(x) || !Number.isInteger(y)) throw new InputError(`${at}coordinates must be integers`, name || 'x');
      if (x < 0 || y < 0 || x >= width || y >= height) throw new InputError(`${at}(${x}, ${y}) is outside the screen (${width}x${height})`, name || 'x');
    });
  }

  moved(x: number, y: number): void {
    this.pointer.x = x;
    this.pointer.y = y;
    this.cursor?.setCursor(this.handle, { x, y });
  }

  setCursorHidden(hidden: boolean): void {
    this.cursor?.setCursor(this.handle, { visible: !hidden });
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
