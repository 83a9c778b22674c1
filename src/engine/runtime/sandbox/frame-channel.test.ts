import { PassThrough, Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, HEADER_BYTES, encodeFrame, parentChannel } from './frame-channel.mjs';

const header = (n: number) => {
  const h = Buffer.alloc(HEADER_BYTES);
  h.writeUInt32BE(n, 0);
  return h;
};

describe('encodeFrame / FrameDecoder', () => {
  it('round-trips messages, whole, split at every byte, and several in one chunk', () => {
    const messages = [{ type: 'answer', text: 'héllo ✓ 😀' }, null, 42, 'x', [1, { a: [] }]];
    const bytes = Buffer.concat(messages.map((m) => encodeFrame(m)));
    expect(new FrameDecoder(1024).push(bytes)).toEqual(messages);
    const d = new FrameDecoder(1024);
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...d.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(messages);
  });

  it('frames as a 4-byte big-endian length and UTF-8 JSON', () => {
    const f = encodeFrame({ a: 'é' });
    expect(f.readUInt32BE(0)).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(f.subarray(HEADER_BYTES).toString('utf8')).toBe('{"a":"é"}');
  });

  it('refuses a frame whose header is over the limit before any of its body arrives', () => {
    const d = new FrameDecoder(100);
    expect(d.push(encodeFrame('a'.repeat(98)))).toEqual(['a'.repeat(98)]); // control: 100 bytes of JSON
    expect(() => d.push(header(101))).toThrow(FrameError);
    expect(() => new FrameDecoder(100).push(header(0xffffffff))).toThrow(/over the 100-byte limit/);
  });

  it('refuses bytes that are no UTF-8 or no JSON, an empty frame, and anything after a failure', () => {
    const bad = Buffer.from([0xff, 0xfe, 0x22]);
    expect(() => new FrameDecoder(100).push(Buffer.concat([header(bad.length), bad]))).toThrow(/UTF-8/);
    expect(() => new FrameDecoder(100).push(Buffer.concat([header(3), Buffer.from('{x}')]))).toThrow(/not JSON/);
    expect(() => new FrameDecoder(100).push(header(0))).toThrow(/not JSON/);
    const d = new FrameDecoder(100);
    expect(() => d.push(Buffer.from('garbage!'))).toThrow(FrameError);
    expect(() => d.push(encodeFrame(1))).toThrow(FrameError);
  });

  it('answers nothing until a frame is complete', () => {
    const d = new FrameDecoder(100);
    const f = encodeFrame({ n: 1 });
    expect(d.push(f.subarray(0, 2))).toEqual([]);
    expect(d.push(f.subarray(2, 6))).toEqual([]);
    expect(d.push(f.subarray(6))).toEqual([{ n: 1 }]);
  });

  it('encodes only JSON values within the limit', () => {
    expect(() => encodeFrame(undefined)).toThrow(FrameError);
    expect(() => encodeFrame('abc', 4)).toThrow(/over the 4-byte limit/);
    expect(encodeFrame('ab', 4).length).toBe(HEADER_BYTES + 4);
  });
});

/** A channel stream: what the child writes lands in `written`; `engine` feeds what it reads. */
function pipePair() {
  const engine = new PassThrough();
  const written: Buffer[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk, _enc, done) {
      written.push(chunk as Buffer);
      done();
    },
  });
  engine.on('data', (c) => stream.push(c));
  engine.on('end', () => stream.push(null));
  return { engine, stream, written: () => new FrameDecoder(1 << 30).push(Buffer.concat(written)) };
}

describe('parentChannel (the child side)', () => {
  it("hands the engine's messages over in order and sends its own as frames", async () => {
    const p = pipePair();
    const got: unknown[] = [];
    const gone: number[] = [];
    const ch = parentChannel((m) => got.push(m), { stream: p.stream, onGone: (c) => gone.push(c) });
    p.engine.write(Buffer.concat([encodeFrame({ type: 'init', limit: 64 }), encodeFrame({ type: 'run' })]));
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual([{ type: 'init', limit: 64 }, { type: 'run' }]);
    ch.limit(64);
    ch.send({ type: 'ready' });
    // Over the engine's limit: nothing is written, the child learns why and sends something smaller.
    expect(() => ch.send({ type: 'answer', text: 'x'.repeat(100) })).toThrow(FrameError);
    ch.sendOr({ type: 'answer', text: 'x'.repeat(100) }, (err) => ({ type: 'answer', error: err.message.slice(0, 20) }));
    expect(p.written()).toEqual([{ type: 'ready' }, { type: 'answer', error: 'the message is 127 b' }]);
    expect(gone).toEqual([]);
    p.engine.end();
    await new Promise((r) => setImmediate(r));
    expect(gone[0]).toBe(0);
  });

  it('ends the child when the engine sends bytes that are no frame', async () => {
    const p = pipePair();
    const gone: number[] = [];
    parentChannel(() => {}, { stream: p.stream, onGone: (c) => gone.push(c) });
    p.engine.write(Buffer.from([0, 0, 0, 2, 0x7b, 0x7b]));
    await new Promise((r) => setImmediate(r));
    expect(gone[0]).toBe(1);
  });
});
