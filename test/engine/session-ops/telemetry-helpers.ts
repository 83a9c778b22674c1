/**
 * Helpers for the telemetry tests: a local site whose pages log, throw, fetch and shift
 * layout, and a collector that reads an SDK telemetry stream in the background until a
 * wanted event shows up (or the stream ends).
 */
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

export interface Envelope {
  seq: number;
  event: { category: string; type: string; ts: number; source: { kind: string; event?: string }; data?: Record<string, unknown>; truncated?: boolean };
}

export const PAGE = `<!doctype html><html><head><title>telemetry page</title></head><body>
<button id="go" style="position:absolute;left:20px;top:20px;width:200px;height:80px">Press me</button>
<script>
  console.log('hello from page', 42, { a: 1 });
  console.error('bad thing happened');
  fetch('/data.json').then((r) => r.json()).then((j) => console.log('fetched', j.ok));
  setTimeout(() => { function thrower() { throw new Error('boom in page'); } thrower(); }, 10);
</script></body></html>`;

export function startSite(extra: Record<string, string> = {}): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p === '/data.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"ok":true}');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(extra[p] ?? PAGE);
  });
}

/** Reads a stream in the background; `until(pred)` resolves with the first matching envelope. */
export function collect(stream: AsyncIterable<unknown>): {
  events: Envelope[];
  ended: Promise<void>;
  until(pred: (e: Envelope) => boolean, ms?: number): Promise<Envelope>;
} {
  const events: Envelope[] = [];
  const waiters = new Set<{ pred: (e: Envelope) => boolean; resolve: (e: Envelope) => void }>();
  const ended = (async () => {
    for await (const raw of stream) {
      const e = raw as Envelope;
      events.push(e);
      for (const w of [...waiters])
        if (w.pred(e)) {
          waiters.delete(w);
          w.resolve(e);
        }
    }
  })().catch(() => {});
  return {
    events,
    ended,
    until(pred, ms = 30_000) {
      const hit = events.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (e: Envelope) => (clearTimeout(t), resolve(e)) };
        const t = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no matching telemetry event; got: ${events.map((e) => e.event.type).join(', ')}`));
        }, ms);
        waiters.add(w);
      });
    },
  };
}
