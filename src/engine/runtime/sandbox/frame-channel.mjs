/**
 * The framing of the channel between the engine and each child that runs tenant code (Playwright
 * executors, the REPL, the WebMCP tool runner, app processes): a plain pipe at fd 3 carrying
 * frames of a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. It replaced
 * Node's `ipc` stdio, whose handle-passing protocol the tenant's code could speak to the engine
 * (`process.send(null)`, `{cmd: 'NODE_HANDLE_ACK'}` ended the engine); a child started this way
 * has no `process.send` at all, and whatever its code writes to the fd is only bytes, which the
 * engine's end (runner-channel.ts) reads as untrusted input.
 *
 * Written once, for both ends: the engine imports the codec, the children (plain JavaScript under
 * bare `node`, in and out of the jail) import it and `parentChannel`.
 */
import net from 'node:net';

/** Bytes of a frame's length header. */
export const HEADER_BYTES = 4;
/** The largest length the header can say. */
export const MAX_FRAME_BYTES = 0xffff_ffff;
/** The fd the channel is at in every child. */
export const CHANNEL_FD = 3;

export class FrameError extends Error {}

/**
 * One message as a frame. Throws FrameError when it is no JSON value or its JSON is over
 * `maxBytes` (the receiver would refuse it).
 * @param {unknown} message
 * @param {number} [maxBytes]
 */
export function encodeFrame(message, maxBytes = MAX_FRAME_BYTES) {
  const json = JSON.stringify(message);
  if (json === undefined) throw new FrameError('the message is not a JSON value');
  const size = Buffer.byteLength(json);
  if (size > maxBytes) throw new FrameError(`the message is ${size} bytes of JSON, over the ${maxBytes}-byte limit`);
  const frame = Buffer.allocUnsafe(HEADER_BYTES + size);
  frame.writeUInt32BE(size, 0);
  frame.write(json, HEADER_BYTES, 'utf8');
  return frame;
}

/**
 * Cuts a byte stream into messages. `push` answers the messages its chunk completed, and throws
 * FrameError on a frame whose header says more than `maxBytes` (before buffering any of it),
 * on bytes that are not UTF-8, or on text that is not JSON; the decoder is spent after a throw.
 * Chunks are kept as they come and joined once per frame (a large frame arriving in many
 * chunks is copied once, not once per chunk).
 */
export class FrameDecoder {
  /** @type {Buffer[]} */
  #chunks = [];
  #buffered = 0;
  /** The body length of the frame being read, once its header is in. */
  #want = -1;
  #failed = false;
  #utf8 = new TextDecoder('utf-8', { fatal: true });

  /** @param {number} maxBytes */
  constructor(maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held for a frame not yet complete (what this decoder costs its process now). */
  get buffered() {
    return this.#buffered;
  }

  /** @param {Buffer} chunk @returns {unknown[]} */
  push(chunk) {
    if (this.#failed) throw new FrameError('the channel already failed');
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const out = [];
    try {
      for (;;) {
        if (this.#want < 0) {
          if (this.#buffered < HEADER_BYTES) break;
          const want = this.#take(HEADER_BYTES).readUInt32BE(0);
          if (want > this.maxBytes) throw new FrameError(`a message of ${want} bytes is over the ${this.maxBytes}-byte limit`);
          this.#want = want;
        }
        if (this.#buffered < this.#want) break;
        const body = this.#take(this.#want);
        this.#want = -1;
        let text;
        try {
          text = this.#utf8.decode(body);
        } catch {
          throw new FrameError('a message is not UTF-8 text');
        }
        try {
          out.push(JSON.parse(text));
        } catch {
          throw new FrameError('a message is not JSON');
        }
      }
    } catch (err) {
      this.#failed = true;
      this.#chunks = [];
      throw err;
    }
    return out;
  }

  /** The next `n` buffered bytes (n ≤ buffered), as one Buffer. */
  #take(n) {
    const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#buffered);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.#chunks = rest.length ? [rest] : [];
    this.#buffered = rest.length;
    return taken;
  }
}

/**
 * The child's end: the engine's messages from fd 3 to `onMessage` (in order), and `send`. The
 * engine going away (the pipe closing) ends the process, as Node's `disconnect` did (`onGone`).
 * `send` throws FrameError, writing nothing, for a message over `maxBytes` — the engine's limit,
 * learnt from its `init` (`limit`) — so the child can answer something smaller instead of being
 * stopped for it.
 * @param {(message: any) => void} onMessage
 * @param {{ stream?: import('node:stream').Duplex, onGone?: (code: number) => void }} [o] the
 *   channel (fd 3 by default) and what to do when it ends (exit; 1 when the engine's bytes made no frame)
 */
export function parentChannel(onMessage, o = {}) {
  const stream = o.stream ?? new net.Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  const onGone = o.onGone ?? ((code) => process.exit(code));
  const decoder = new FrameDecoder(MAX_FRAME_BYTES);
  let maxBytes = MAX_FRAME_BYTES;
  stream.on('data', (chunk) => {
    let messages;
    try {
      messages = decoder.push(chunk);
    } catch {
      return onGone(1);
    }
    for (const m of messages) onMessage(m);
  });
  stream.on('end', () => onGone(0));
  stream.on('close', () => onGone(0));
  stream.on('error', () => onGone(0));
  return {
    /** @param {number} bytes */
    limit(bytes) {
      if (Number.isInteger(bytes) && bytes > 0) maxBytes = bytes;
    },
    /** @param {unknown} message @param {(err?: Error | null) => void} [done] */
    send(message, done) {
      stream.write(encodeFrame(message, maxBytes), done);
    },
    /**
     * Sends `message`, or — when it is over the limit — what `instead` makes of the FrameError
     * (a short answer saying so).
     * @param {unknown} message @param {(err: FrameError) => unknown} instead @param {(err?: Error | null) => void} [done]
     */
    sendOr(message, instead, done) {
      let frame;
      try {
        frame = encodeFrame(message, maxBytes);
      } catch (err) {
        if (!(err instanceof FrameError)) throw err;
        frame = encodeFrame(instead(err), maxBytes);
      }
      stream.write(frame, done);
    },
  };
}
