/**
 * The one SSE reader of the clients (Electron main and the renderer): parses a
 * `text/event-stream` body with eventsource-parser and hands each frame's JSON `data` on.
 * Works on a web ReadableStream (fetch in the renderer) and on any async iterable of bytes
 * (undici's body in main).
 */
import { createParser } from 'eventsource-parser';

/** A frame whose `data` is not JSON: the stream is wrong, so reading stops. */
export class SseFrameError extends Error {
  constructor(data: string) {
    super(`the server sent a frame that is not JSON: ${data.slice(0, 100)}`);
    this.name = 'StreamError';
  }
}

export type ByteBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

async function* chunksOf(body: ByteBody): AsyncIterable<Uint8Array> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Resolves when the body ends or `stopped()` turns true between chunks; rejects with
 * SseFrameError on a frame that is not JSON (frames after it are not delivered).
 */
export async function readJsonFrames(body: ByteBody, onFrame: (frame: unknown) => void, stopped: () => boolean = () => false): Promise<void> {
  let bad: SseFrameError | undefined;
  const parser = createParser({
    onEvent: (ev) => {
      if (bad) return;
      let frame: unknown;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        bad = new SseFrameError(ev.data);
        return;
      }
      onFrame(frame);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of chunksOf(body)) {
    if (stopped()) return;
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (bad) throw bad;
  }
}
