import { describe, expect, it } from 'vitest';
import { readJsonFrames, SseFrameError } from './sse-frames.js';

const bytes = (s: string) => new TextEncoder().encode(s);
async function* iterable(parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  yield* parts;
}
const webStream = (parts: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p);
      c.close();
    },
  });

describe('readJsonFrames', () => {
  // A frame cut inside a multi-byte character and across chunks, then a second frame.
  const text = 'data: {"a":"é"}\n\nid: 2\ndata: {"b":2}\n\n';
  const raw = bytes(text);
  const cut = [raw.subarray(0, 12), raw.subarray(12, 13), raw.subarray(13)];

  it('reads frames split across chunks from a web stream and from an async iterable', async () => {
    for (const body of [webStream(cut), iterable(cut)]) {
      const frames: unknown[] = [];
      await readJsonFrames(body, (f) => frames.push(f));
      expect(frames).toEqual([{ a: 'é' }, { b: 2 }]);
    }
  });

  it('stops at a frame that is not JSON and delivers nothing after it', async () => {
    const frames: unknown[] = [];
    await expect(readJsonFrames(iterable([bytes('data: {"a":1}\n\ndata: nope\n\ndata: {"c":3}\n\n')]), (f) => frames.push(f))).rejects.toBeInstanceOf(
      SseFrameError,
    );
    expect(frames).toEqual([{ a: 1 }]);
  });

  it('stops reading when told to between chunks', async () => {
    const frames: unknown[] = [];
    await readJsonFrames(
      iterable([bytes('data: 1\n\n'), bytes('data: 2\n\n')]),
      (f) => frames.push(f),
      () => frames.length > 0,
    );
    expect(frames).toEqual([1]);
  });
});
