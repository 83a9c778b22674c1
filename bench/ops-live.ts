/**
 * The live-view figures of `npm run bench:ops`: frames per second a live-view client receives
 * at 1280×720 on an animating page (over the live-view WebSocket, like the viewer page)
 * beside the raw CDP screencast rate of the same page (baseline), and input-to-frame latency:
 * a click sent through the live-view input that flips the page colour, timed until the first
 * frame after it arrives (the page is still otherwise, so that frame is the repaint; the
 * first sample is decoded to check its colour).
 */
import { execFileSync } from 'node:child_process';
import { WebSocket } from 'ws';
import { rawCdp } from './raw-cdp.js';

export const ANIMATED = `data:text/html,<body style="margin:0"><div id="b" style="position:absolute;width:200px;height:200px;background:%2300f"></div><script>
let t=0;(function f(){t++;const b=document.getElementById('b');b.style.left=(t*7%251080)%251080+'px';b.style.top=(t*3%25520)+'px';b.style.background='hsl('+(t%25360)+',80%25,50%25)';requestAnimationFrame(f)})()</script></body>`;
export const CLICKABLE = `data:text/html,<body style="margin:0;background:%23fff;height:100vh" onmousedown="document.body.style.background=document.body.style.background==='red'?'blue':'red'"></body>`;

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const open = (url: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

/** Frames per second the live-view socket delivers over `ms`. */
export async function liveViewFps(liveWsUrl: string, ms: number): Promise<number> {
  const ws = await open(liveWsUrl);
  let frames = 0;
  let started = 0;
  ws.on('message', (d) => {
    if (!d.toString().startsWith('{"type":"frame"')) return;
    if (!started) started = performance.now();
    else frames++;
  });
  await new Promise((r) => setTimeout(r, ms));
  ws.close();
  return started ? (frames * 1000) / (performance.now() - started) : 0;
}

/** Raw CDP screencast rate of the session's first page (the baseline). */
export async function rawScreencastFps(cdpWsUrl: string, ms: number): Promise<number> {
  const ws = await open(cdpWsUrl);
  const send = rawCdp(ws);
  let frames = 0;
  let started = 0;
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.method === 'Page.screencastFrame') {
      void send('Page.screencastFrameAck', { sessionId: m.params.sessionId }, m.sessionId);
      if (!started) started = performance.now();
      else frames++;
    }
  });
  const { targetInfos } = await send('Target.getTargets');
  const page = targetInfos.find((t: { type: string }) => t.type === 'page');
  if (!page) throw new Error('the browser has no page');
  const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  await send('Page.startScreencast', { format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 720 }, sessionId);
  await new Promise((r) => setTimeout(r, ms));
  await send('Page.stopScreencast', undefined, sessionId);
  ws.close();
  return started ? (frames * 1000) / (performance.now() - started) : 0;
}

/** Input-to-frame latencies (ms) of `n` clicks through the live-view socket. */
export async function inputToFrame(liveWsUrl: string, n: number): Promise<{ samples: number[]; firstColour: string }> {
  const ws = await open(liveWsUrl);
  let waiter: ((jpeg: string) => void) | undefined;
  let haveFrame = false;
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.type !== 'frame') return;
    haveFrame = true;
    waiter?.(m.data);
  });
  while (!haveFrame) await new Promise((r) => setTimeout(r, 50));
  const samples: number[] = [];
  let firstColour = '';
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, 150)); // let the previous repaint settle
    const t0 = performance.now();
    const got = new Promise<string>((resolve) => (waiter = resolve));
    ws.send(JSON.stringify({ type: 'mouse', action: 'down', x: 300, y: 300, button: 'left', buttons: 1, clickCount: 1 }));
    ws.send(JSON.stringify({ type: 'mouse', action: 'up', x: 300, y: 300, button: 'left', buttons: 0, clickCount: 1 }));
    const jpeg = await got;
    waiter = undefined;
    samples.push(performance.now() - t0);
    if (i === 0) firstColour = centreColour(jpeg);
  }
  ws.close();
  return { samples, firstColour };
}

/** The centre pixel of a JPEG as `r,g,b` (decoded by ffmpeg; outside the timed path). */
function centreColour(b64: string): string {
  const rgb = execFileSync('ffmpeg', ['-v', 'error', '-i', '-', '-vf', 'crop=2:2:iw/2:ih/2,scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    input: Buffer.from(b64, 'base64'),
  });
  return [...rgb.subarray(0, 3)].join(',');
}

/** Navigates the session's first page (raw CDP, so no other client stays attached). */
export async function navigate(cdpWsUrl: string, url: string): Promise<void> {
  const ws = await open(cdpWsUrl);
  const send = rawCdp(ws);
  const { targetInfos } = await send('Target.getTargets');
  const page = targetInfos.find((t: { type: string }) => t.type === 'page');
  if (!page) throw new Error('the browser has no page');
  const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  await send('Page.navigate', { url }, sessionId);
  await new Promise((r) => setTimeout(r, 500));
  ws.close();
}
