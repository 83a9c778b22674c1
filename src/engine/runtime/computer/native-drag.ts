/**
 * HTML5 drag and drop during `drag_mouse`. When a page starts a native drag, Chromium stops
 * delivering mouse events to it and waits for the OS drag loop, which synthetic input never
 * runs. With `Input.setInterceptDrags` the drag is handed to us instead, and we continue it
 * with `Input.dispatchDragEvent` (dragEnter/dragOver on each move, drop on release) — the way
 * Playwright drives drag and drop over CDP.
 */
import type { Protocol } from 'devtools-protocol';
import type { InputTarget } from './input-target.js';

export class NativeDrag {
  private data?: Protocol.Input.DragData;
  private entered = false;

  private constructor(
    private readonly t: InputTarget,
    private readonly sessionId: string,
    private readonly unsubscribe: () => void,
  ) {}

  static async start(t: InputTarget): Promise<NativeDrag> {
    const { sessionId } = await t.cdp.activePage();
    const ref: { drag?: NativeDrag } = {};
    const off = await t.cdp.on('Input.dragIntercepted', (p, sid) => {
      if (sid === sessionId && ref.drag) ref.drag.data = p.data;
    });
    const drag = (ref.drag = new NativeDrag(t, sessionId, off));
    await t.cdp.send('Input.setInterceptDrags', { enabled: true }, sessionId).catch(() => {});
    return drag;
  }

  get dragging(): boolean {
    return this.data !== undefined;
  }

  /** After each pointer move while the button is held. */
  async moved(x: number, y: number): Promise<void> {
    if (!this.dragging) {
      // A round trip to the page: by its answer the renderer has handled the move and any
      // drag it started has been reported.
      await this.t.cdp.send('Runtime.evaluate', { expression: '0' }, this.sessionId).catch(() => {});
      if (!this.dragging) return;
    }
    if (!this.entered) {
      this.entered = true;
      await this.event('dragEnter', x, y);
    }
    await this.event('dragOver', x, y);
  }

  /** At release: drops when a native drag is under way. */
  async drop(x: number, y: number): Promise<void> {
    if (this.dragging) await this.event('drop', x, y);
  }

  async dispose(): Promise<void> {
    this.unsubscribe();
    await this.t.cdp.send('Input.setInterceptDrags', { enabled: false }, this.sessionId).catch(() => {});
  }

  private event(type: Protocol.Input.DispatchDragEventRequest['type'], x: number, y: number): Promise<unknown> {
    // Only called while dragging, i.e. once the intercepted drag's data is in.
    return this.t.cdp.send('Input.dispatchDragEvent', { type, x, y, data: this.data!, modifiers: this.t.modifiers }, this.sessionId);
  }
}
