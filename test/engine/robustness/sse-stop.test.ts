/**
 * Stopping the engine ends its open SSE streams instead of cutting their sockets: each
 * chunked response is finished, so the official client's async iterators simply end (before,
 * Fastify's forced close of every connection made them throw `UND_ERR_SOCKET`).
 */
import { describe, expect, it } from 'vitest';
import { startTestEngine } from '../../helpers/engine.js';
import { followChanges } from '../../helpers/change-feed.js';

/** Reads a stream to its end: what arrived, and the error if reading broke instead. */
async function drain(stream: AsyncIterable<unknown>): Promise<{ events: unknown[]; error?: unknown }> {
  const events: unknown[] = [];
  try {
    for await (const e of stream) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('engine stop', () => {
  it('ends every open SSE stream so the official client iterators finish without an error', async () => {
    const te = await startTestEngine();
    try {
      const id = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
      await te.client.browsers.fs.writeFile(id, 'line one\n', { path: '/logs/app.log' });
      const spawned = await te.client.browsers.process.spawn(id, { command: 'sh', args: ['-c', 'echo started; exec sleep 600'] });
      const streams = [
        await te.client.browsers.logs.stream(id, { source: 'path', path: '/logs/app.log', follow: true }),
        await te.client.browsers.process.stdoutStream(spawned.process_id!, { id }),
      ];
      // Each stream has delivered its first event, so each is open and being read when the stop comes.
      const iterators = streams.map((s) => s[Symbol.asyncIterator]());
      for (const it of iterators) expect((await it.next()).done).toBe(false);
      const rest = iterators.map((it) => drain({ [Symbol.asyncIterator]: () => it }));
      await te.engine.stop();
      for (const r of await Promise.all(rest)) expect(r.error).toBeUndefined();
    } finally {
      await te.stop();
    }
  });

  it('ends the change feed (GET /changes) cleanly too', async () => {
    const te = await startTestEngine();
    try {
      const feed = await followChanges(te.url, te.adminKey);
      await feed.next((e) => e.type === 'hello');
      await te.engine.stop();
      expect(await feed.end).toBeUndefined();
    } finally {
      await te.stop();
    }
  });
});
