/**
 * The telemetry and recording figures of `npm run bench:ops`. Telemetry: a page logs with a
 * high-resolution epoch timestamp; we time its arrival at an SSE client of
 * `/telemetry/stream` and, in the same run, at a raw CDP client listening to
 * `Runtime.consoleAPICalled` (the baseline). Recording: CPU seconds of the engine process,
 * ffmpeg and the session's Chromium during 10 s of recording vs 10 s without, same page.
 */
import fs from 'node:fs';
import { WebSocket } from 'ws';
import { rawCdp } from './raw-cdp.js';
import { createParser } from 'eventsource-parser';
import type Kernel from '@onkernel/sdk';
import { pct } from './ops-live.js';

const now = () => performance.timeOrigin + performance.now();

export async function telemetryLatency(baseUrl: string, adminKey: string, sessionId: string, cdpWsUrl: string, n: number) {
  const sse: number[] = [];
  const cdp: number[] = [];
  const sseAt = new Map<string, number>();
  const cdpAt = new Map<string, number>();
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/browsers/${sessionId}/telemetry/stream`, {
    headers: { authorization: `Bearer ${adminKey}`, accept: 'text/event-stream' },
    signal: ac.signal,
  });
  const parser = createParser({
    onEvent: (e) => {
      const t = now();
      const text = String(JSON.parse(e.data).event?.data?.text ?? '');
      if (text.startsWith('bench ')) sseAt.set(text, t);
    },
  });
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(dec.decode(chunk, { stream: true }));
  })().catch(() => {});
  const ws = new WebSocket(cdpWsUrl, { perMessageDeflate: false });
  await new Promise((r) => ws.once('open', r));
  const send = rawCdp(ws);
  ws.on('message', (raw) => {
    const t = now();
    const m = JSON.parse(raw.toString());
    if (m.method === 'Runtime.consoleAPICalled') {
      const text = m.params.args.map((a: { value?: unknown }) => a.value).join(' ');
      if (text.startsWith('bench ')) cdpAt.set(text, t);
    }
  });
  const { targetInfos } = await send('Target.getTargets');
  const page = targetInfos.find((t: { type: string }) => t.type === 'page');
  if (!page) throw new Error('the browser has no page');
  const { sessionId: sid } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  await send('Runtime.enable', undefined, sid);
  for (let i = 0; i < n; i++) {
    const r = await send(
      'Runtime.evaluate',
      { expression: `(() => { const t = performance.timeOrigin + performance.now(); console.log('bench ${i}', t); return t; })()`, returnByValue: true },
      sid,
    );
    const logged = r.result.value as number;
    const key = `bench ${i} ${logged}`;
    for (let w = 0; w < 200 && !(sseAt.has(key) && cdpAt.has(key)); w++) await new Promise((x) => setTimeout(x, 5));
    if (sseAt.has(key)) sse.push(sseAt.get(key)! - logged);
    if (cdpAt.has(key)) cdp.push(cdpAt.get(key)! - logged);
    await new Promise((x) => setTimeout(x, 20));
  }
  ws.close();
  ac.abort();
  return { n, received: sse.length, sse: { p50: pct(sse, 50), p99: pct(sse, 99) }, cdp: { p50: pct(cdp, 50), p99: pct(cdp, 99) } };
}

/** CPU seconds (user+system) of a process and all its descendants. */
function treeCpu(root: number): Map<number, { comm: string; cpu: number }> {
  const out = new Map<number, { comm: string; cpu: number }>();
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      out.set(Number(d), { comm, cpu: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {
      /* exited meanwhile */
    }
  }
  const inTree = (pid: number): boolean => pid === root || (parent.has(pid) && pid > 1 && inTree(parent.get(pid)!));
  for (const pid of [...out.keys()]) if (!inTree(pid)) out.delete(pid);
  return out;
}

function cpuBy(snapshot: Map<number, { comm: string; cpu: number }>, pred: (comm: string, pid: number) => boolean): number {
  let s = 0;
  for (const [pid, v] of snapshot) if (pred(v.comm, pid)) s += v.cpu;
  return s;
}

/** CPU seconds during `ms` with and without a recording running. */
export async function recordingCpu(client: Kernel, sessionId: string, ms: number) {
  const measure = async (during: () => Promise<() => Promise<void>>) => {
    const before = treeCpu(process.pid);
    const ownBefore = process.cpuUsage();
    const stop = await during();
    await new Promise((r) => setTimeout(r, ms));
    const after = treeCpu(process.pid);
    const own = process.cpuUsage(ownBefore);
    await stop();
    const delta = (pred: (c: string, pid: number) => boolean) => cpuBy(after, pred) - cpuBy(new Map([...before].filter(([pid]) => after.has(pid))), pred);
    return { engine: (own.user + own.system) / 1e6, ffmpeg: delta((c) => c === 'ffmpeg'), chromium: delta((c) => c.startsWith('chrom')) };
  };
  const idle = await measure(async () => async () => {});
  const rec = await measure(async () => {
    const r = await client.browsers.replays.start(sessionId, { framerate: 10 });
    return async () => {
      await client.browsers.replays.stop(r.replay_id, { id: sessionId });
    };
  });
  return { seconds: ms / 1000, idle, recording: rec };
}
