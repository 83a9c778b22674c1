/**
 * `/browsers/{id}/computer/*` through the official client against a real headless session:
 * a local page records every mouse, wheel and key event it receives, and the test reads that
 * record back over the session's public CDP endpoint with Playwright. Covers clicks (all
 * buttons, down/up, double clicks, held modifiers), moves (instant and smooth), drags,
 * typing, keysym combos, scrolling, screenshots (full and region, checked as PNGs of the
 * right size), the clipboard in both directions, cursor visibility, batches that stop at the
 * first failure, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { openBrowserSession } from '../../helpers/browser-session.js';

const RECORDER = `<!doctype html><html><head><title>recorder</title><style>
  body { margin: 0; height: 3000px; font: 16px sans-serif; }
  #area { position: absolute; left: 0; top: 0; width: 600px; height: 300px; background: #eef; }
  #i { position: absolute; left: 10px; top: 320px; width: 300px; }
  #j { position: absolute; left: 10px; top: 360px; width: 300px; }
  #p { position: absolute; left: 10px; top: 400px; }
  #src { position: absolute; left: 650px; top: 20px; width: 50px; height: 50px; background: red; }
  #dst { position: absolute; left: 650px; top: 150px; width: 100px; height: 100px; background: green; }
</style></head><body>
<div id="area"></div><input id="i"><input id="j"><p id="p">copy this text</p>
<div id="src" draggable="true"></div><div id="dst"></div>
<script>
  window.__log = [];
  const rec = (e) => window.__log.push({ type: e.type, x: e.clientX, y: e.clientY, button: e.button, buttons: e.buttons, detail: e.detail,
    key: e.key, code: e.code, ctrl: e.ctrlKey, shift: e.shiftKey, alt: e.altKey, meta: e.metaKey, dx: e.deltaX, dy: e.deltaY });
  for (const t of ['mousedown', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu', 'mousemove', 'wheel', 'keydown', 'keyup'])
    window.addEventListener(t, rec, true);
  window.addEventListener('contextmenu', (e) => e.preventDefault());
  for (const t of ['dragstart', 'drop']) window.addEventListener(t, rec, true);
  document.getElementById('dst').addEventListener('dragover', (e) => e.preventDefault());
  document.getElementById('dst').addEventListener('drop', (e) => e.preventDefault());
</script></body></html>`;

let te: TestEngine;
let id: string;
let browser: Browser;
let page: Page;
let server: LocalServer;
let pageUrl: string;

beforeAll(async () => {
  server = await startLocalServer({ '/': RECORDER });
  pageUrl = `${server.url}/`;
  te = await startTestEngine();
  ({ id, browser, page } = await openBrowserSession(te, { viewport: { width: 800, height: 600 } }));
  await page.goto(pageUrl);
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await te?.stop();
  await server?.close();
});

type Ev = {
  type: string;
  x: number;
  y: number;
  button: number;
  buttons: number;
  detail: number;
  key: string;
  code: string;
  ctrl: boolean;
  shift: boolean;
  dx: number;
  dy: number;
};
async function take(): Promise<Ev[]> {
  return page.evaluate(() => (window as unknown as { __log: Ev[] }).__log.splice(0));
}
/** The recorded events once the last expected one has arrived (input reaches the page asynchronously). */
async function takeUntil(last: (e: Ev) => boolean): Promise<Ev[]> {
  await expect.poll(() => page.evaluate(() => (window as unknown as { __log: Ev[] }).__log), { timeout: 10_000 }).toContainEqual(expect.anything());
  await expect.poll(async () => (await page.evaluate(() => (window as unknown as { __log: Ev[] }).__log)).some(last), { timeout: 10_000 }).toBe(true);
  return take();
}
const types = (evs: Ev[], ...only: string[]) => evs.filter((e) => only.includes(e.type)).map((e) => e.type);

async function status(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
    return { status: 200, message: '' };
  } catch (err) {
    const e = err as { status?: number; error?: { message?: string } };
    return { status: e.status ?? -1, message: e.error?.message ?? String(err) };
  }
}

function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(buf.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('computer: mouse', () => {
  it('clicks with each button, down/up separately and as double clicks', async () => {
    await take();
    await te.client.browsers.computer.clickMouse(id, { x: 100, y: 50 });
    let evs = await take();
    expect(types(evs, 'mousedown', 'mouseup', 'click')).toEqual(['mousedown', 'mouseup', 'click']);
    expect(evs.find((e) => e.type === 'click')).toMatchObject({ x: 100, y: 50, button: 0 });

    await te.client.browsers.computer.clickMouse(id, { x: 120, y: 60, button: 'right' });
    evs = await take();
    expect(evs.find((e) => e.type === 'contextmenu')).toMatchObject({ x: 120, y: 60, button: 2 });
    await te.client.browsers.computer.clickMouse(id, { x: 130, y: 60, button: 'middle' });
    expect((await take()).find((e) => e.type === 'mousedown')).toMatchObject({ button: 1 });
    // The back and forward buttons do what they do in a browser: walk the history.
    await te.client.browsers.computer.clickMouse(id, { x: 130, y: 60, button: 'back' });
    await expect.poll(() => page.url()).toBe('about:blank');
    await te.client.browsers.computer.clickMouse(id, { x: 130, y: 60, button: 'forward' });
    await expect.poll(() => page.url()).toBe(pageUrl);
    await page.goto(pageUrl);

    await te.client.browsers.computer.clickMouse(id, { x: 200, y: 100, click_type: 'down' });
    expect(types(await take(), 'mousedown', 'mouseup')).toEqual(['mousedown']);
    await te.client.browsers.computer.clickMouse(id, { x: 200, y: 100, click_type: 'up' });
    expect(types(await take(), 'mousedown', 'mouseup')).toEqual(['mouseup']);

    await te.client.browsers.computer.clickMouse(id, { x: 210, y: 110, num_clicks: 2 });
    evs = await take();
    expect(types(evs, 'click', 'dblclick')).toEqual(['click', 'click', 'dblclick']);

    await te.client.browsers.computer.clickMouse(id, { x: 220, y: 110, hold_keys: ['shift'] });
    evs = await take();
    expect(evs.find((e) => e.type === 'click')).toMatchObject({ shift: true });
    expect(evs.filter((e) => e.type === 'keydown').map((e) => e.key)).toEqual(['Shift']);
  });

  it('moves instantly and smoothly and reports the position', async () => {
    await take();
    await te.client.browsers.computer.moveMouse(id, { x: 300, y: 200 });
    let moves = (await take()).filter((e) => e.type === 'mousemove');
    expect(moves.at(-1)).toMatchObject({ x: 300, y: 200 });
    expect(await te.client.browsers.computer.getMousePosition(id)).toEqual({ x: 300, y: 200 });
    await te.client.browsers.computer.moveMouse(id, { x: 50, y: 40, smooth: true, duration_ms: 200 });
    moves = (await take()).filter((e) => e.type === 'mousemove');
    expect(moves.length).toBeGreaterThan(3);
    expect(moves.at(-1)).toMatchObject({ x: 50, y: 40 });
    expect(await te.client.browsers.computer.getMousePosition(id)).toEqual({ x: 50, y: 40 });
    // The live view's cursor overlay follows automation.
    const liveView = te.engine.services.liveView as { cursor(id: string): { x?: number; y?: number } };
    expect(liveView.cursor(id)).toMatchObject({ x: 50, y: 40 });
  });

  it('drags along a path with the button held', async () => {
    // (a selection left by earlier shift-clicks would turn this into a native text drag)
    await page.evaluate(() => getSelection()?.removeAllRanges());
    await take();
    await te.client.browsers.computer.dragMouse(id, {
      path: [
        [10, 10],
        [100, 20],
        [150, 120],
      ],
      steps_per_segment: 4,
    });
    const evs = (await takeUntil((e) => e.type === 'mouseup')).filter((e) => ['mousedown', 'mousemove', 'mouseup'].includes(e.type));
    expect(evs[0].type).toBe('mousemove');
    const down = evs.findIndex((e) => e.type === 'mousedown');
    expect(evs[down]).toMatchObject({ x: 10, y: 10 });
    const during = evs.slice(down + 1, -1);
    expect(during.length).toBe(8);
    expect(during.every((e) => e.type === 'mousemove' && e.buttons === 1)).toBe(true);
    expect(during).toContainEqual(expect.objectContaining({ x: 100, y: 20 }));
    expect(evs.at(-1)).toMatchObject({ type: 'mouseup', x: 150, y: 120 });
    // smooth drag also ends where asked
    await te.client.browsers.computer.dragMouse(id, {
      path: [
        [20, 20],
        [60, 80],
      ],
      smooth: true,
      duration_ms: 100,
      button: 'middle',
    });
    const smooth = await takeUntil((e) => e.type === 'mouseup');
    expect(smooth.find((e) => e.type === 'mousedown')).toMatchObject({ button: 1, x: 20, y: 20 });
    expect(smooth.filter((e) => e.type === 'mouseup').at(-1)).toMatchObject({ x: 60, y: 80 });
  });

  it('drags and drops draggable elements (HTML5 drag and drop)', async () => {
    await take();
    await te.client.browsers.computer.dragMouse(id, {
      path: [
        [675, 45],
        [700, 120],
        [700, 200],
      ],
      steps_per_segment: 5,
    });
    const evs = await takeUntil((e) => e.type === 'drop');
    expect(types(evs, 'dragstart', 'drop')).toEqual(['dragstart', 'drop']);
    expect(evs.find((e) => e.type === 'drop')).toMatchObject({ x: 700, y: 200 });
    // the pointer works normally afterwards
    await te.client.browsers.computer.clickMouse(id, { x: 100, y: 100 });
    expect(types(await takeUntil((e) => e.type === 'click'), 'click')).toEqual(['click']);
  });

  it('scrolls in wheel units', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await take();
    await te.client.browsers.computer.scroll(id, { x: 100, y: 100, delta_y: 3, delta_x: 1 });
    // Chromium may coalesce queued wheel events; the deltas add up either way.
    await expect
      .poll(async () =>
        (await page.evaluate(() => (window as unknown as { __log: Ev[] }).__log)).filter((e) => e.type === 'wheel').reduce((s, w) => s + w.dy, 0),
      )
      .toBe(300);
    const wheels = (await take()).filter((e) => e.type === 'wheel');
    expect(wheels.reduce((s, w) => s + w.dx, 0)).toBe(100);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await te.client.browsers.computer.scroll(id, { x: 100, y: 100, delta_y: -5 });
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  });
});

describe('computer: keyboard', () => {
  it('types text, presses keysyms and combos', async () => {
    await page.fill('#i', '');
    await page.focus('#i');
    await take();
    await te.client.browsers.computer.typeText(id, { text: 'Hello, World! é', delay: 5 });
    expect(await page.inputValue('#i')).toBe('Hello, World! é');
    const downs = (await take()).filter((e) => e.type === 'keydown');
    expect(downs[0]).toMatchObject({ key: 'H', code: 'KeyH' });
    await te.client.browsers.computer.pressKey(id, { keys: ['ctrl+a', 'BackSpace'] });
    expect(await page.inputValue('#i')).toBe('');
    await take();
    await te.client.browsers.computer.pressKey(id, { keys: ['Ctrl+Shift+k', 'Return', 'ISO_Left_Tab', 'KP_Enter'] });
    const keys = (await takeUntil((e) => e.type === 'keyup' && e.code === 'NumpadEnter')).filter((e) => e.type === 'keydown');
    expect(keys.find((e) => e.code === 'KeyK')).toMatchObject({ ctrl: true, shift: true, key: 'K' });
    expect(keys.map((k) => k.key)).toEqual(['Control', 'Shift', 'K', 'Enter', 'Tab', 'Enter']);
    // (Ctrl+Shift+Tab is accepted too; Chromium keeps that shortcut for itself, like a real keyboard's.)
    await te.client.browsers.computer.pressKey(id, { keys: ['ctrl+shift+Tab'] });
    // Keys the page leaves alone reach the browser: F5 reloads.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await te.client.browsers.computer.pressKey(id, { keys: ['F5'] });
    await expect.poll(() => page.evaluate(() => (window as unknown as { marker?: number }).marker ?? 'reloaded')).toBe('reloaded');
    // Tab moves the focus like a real keyboard does.
    await page.focus('#i');
    await te.client.browsers.computer.pressKey(id, { keys: ['Tab'] });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('j');
    // hold_keys wrap the whole sequence; duration holds the key down
    await page.focus('#i');
    await te.client.browsers.computer.pressKey(id, { keys: ['a', 'b'], hold_keys: ['Shift_L'], duration: 30 });
    expect(await page.inputValue('#i')).toBe('AB');
  });

  it('shares the clipboard with the page in both directions (headless)', async () => {
    await te.client.browsers.computer.writeClipboard(id, { text: 'from the API ✓' });
    await page.fill('#j', '');
    await page.focus('#j');
    await te.client.browsers.computer.pressKey(id, { keys: ['ctrl+v'] });
    expect(await page.inputValue('#j')).toBe('from the API ✓');
    await page.evaluate(() => {
      const r = document.createRange();
      r.selectNodeContents(document.getElementById('p')!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(r);
    });
    await te.client.browsers.computer.pressKey(id, { keys: ['Control_L+c'] });
    expect(await te.client.browsers.computer.readClipboard(id)).toEqual({ text: 'copy this text' });
  });
});

describe('computer: screen, cursor and batches', () => {
  it('takes PNG screenshots of the screen and of a region', async () => {
    const full = Buffer.from(await (await te.client.browsers.computer.captureScreenshot(id)).arrayBuffer());
    // The screen is the page's viewport (see the report on headless window sizes).
    const [width, height] = await page.evaluate(() => [innerWidth, innerHeight]);
    expect(pngSize(full)).toEqual({ width, height });
    expect(width).toBe(800);
    const res = await te.client.browsers.computer.captureScreenshot(id, { region: { x: 10, y: 20, width: 100, height: 50 } });
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 100, height: 50 });
    expect((await status(te.client.browsers.computer.captureScreenshot(id, { region: { x: 750, y: 0, width: 100, height: 50 } }))).status).toBe(400);
  });

  it('sets cursor visibility for the live view', async () => {
    expect(await te.client.browsers.computer.setCursorVisibility(id, { hidden: true })).toEqual({ ok: true });
    const liveView = te.engine.services.liveView as { cursor(id: string): { visible: boolean } };
    expect(liveView.cursor(id).visible).toBe(false);
    expect(await te.client.browsers.computer.setCursorVisibility(id, { hidden: false })).toEqual({ ok: true });
    expect(liveView.cursor(id).visible).toBe(true);
  });

  it('runs a batch in order and stops at the first failure', async () => {
    await page.fill('#i', '');
    await page.focus('#i');
    await te.client.browsers.computer.batch(id, {
      actions: [
        { type: 'type_text', type_text: { text: 'ab' } },
        { type: 'sleep', sleep: { duration_ms: 10 } },
        { type: 'press_key', press_key: { keys: ['BackSpace'] } },
        { type: 'move_mouse', move_mouse: { x: 5, y: 6 } },
        { type: 'set_cursor', set_cursor: { hidden: false } },
      ],
    });
    expect(await page.inputValue('#i')).toBe('a');
    expect(await te.client.browsers.computer.getMousePosition(id)).toEqual({ x: 5, y: 6 });
    const failed = await status(
      te.client.browsers.computer.batch(id, {
        actions: [
          { type: 'type_text', type_text: { text: 'c' } },
          { type: 'press_key', press_key: { keys: ['NoSuchKey'] } },
          { type: 'type_text', type_text: { text: 'd' } },
        ],
      }),
    );
    expect(failed.status).toBe(400);
    expect(failed.message).toContain('actions[1]');
    expect(failed.message).toContain('NoSuchKey');
    expect(await page.inputValue('#i')).toBe('ac');
    const missing = await status(te.client.browsers.computer.batch(id, { actions: [{ type: 'click_mouse' }] }));
    expect(missing).toMatchObject({ status: 400 });
    expect(missing.message).toContain('actions[0]');
  });

  it('rejects bad input with 400 and unknown sessions with 404', async () => {
    const c = te.client.browsers.computer;
    const bad: [string, () => Promise<unknown>][] = [
      ['missing y', () => c.clickMouse(id, { x: 1 } as never)],
      ['bad button', () => c.clickMouse(id, { x: 1, y: 1, button: 'side' } as never)],
      ['negative', () => c.clickMouse(id, { x: -1, y: 1 })],
      ['fraction', () => c.moveMouse(id, { x: 1.5, y: 1 })],
      ['off screen', () => c.moveMouse(id, { x: 800, y: 10 })],
      ['bad key', () => c.pressKey(id, { keys: ['Ctrl+Nope'] })],
      ['no keys', () => c.pressKey(id, { keys: [] })],
      ['bad hold key', () => c.clickMouse(id, { x: 1, y: 1, hold_keys: ['Hyperx'] })],
      ['short path', () => c.dragMouse(id, { path: [[1, 1]] })],
      ['bad point', () => c.dragMouse(id, { path: [[1, 1], [1]] })],
      [
        'drag off screen',
        () =>
          c.dragMouse(id, {
            path: [
              [1, 1],
              [5000, 1],
            ],
          }),
      ],
      ['no text', () => c.typeText(id, {} as never)],
      ['bad cursor', () => c.setCursorVisibility(id, { hidden: 'yes' } as never)],
      ['bad batch type', () => c.batch(id, { actions: [{ type: 'jump' } as never] })],
      ['no clipboard text', () => c.writeClipboard(id, {} as never)],
    ];
    for (const [what, p] of bad) expect([what, (await status(p())).status]).toEqual([what, 400]);
    const named = await status(c.pressKey(id, { keys: ['Return', 'Ctrl+Nope'] }));
    expect(named.message).toContain('Nope');
    expect((await status(c.clickMouse('no-such-session', { x: 1, y: 1 }))).status).toBe(404);
    expect((await status(c.readClipboard('no-such-session'))).status).toBe(404);
  });

  it('accepts the session JWT on its computer routes', async () => {
    const s = await te.client.browsers.retrieve(id);
    const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
    const res = await fetch(`${s.base_url}/computer/get_mouse_position?jwt=${encodeURIComponent(jwt)}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ x: expect.any(Number), y: expect.any(Number) });
  });
});
