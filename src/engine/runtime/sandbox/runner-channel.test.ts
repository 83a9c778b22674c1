import { Duplex } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, encodeFrame } from './frame-channel.mjs';
import { RunnerChannel, configureRunnerMessageLimit, runnerPendingLimit } from './runner-channel.js';

const Msg = Type.Union([
  Type.Object({ type: Type.Literal('ready') }),
  Type.Object({ type: Type.Literal('answer'), callId: Type.String(), ok: Type.Boolean() }),
]);

/** The engine's channel over an in-memory stream: `child` writes bytes to the engine, `sent` reads what the engine wrote. */
function setup(maxBytes = 1024) {
  const written: Buffer[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk, _enc, done) {
      written.push(chunk as Buffer);
      done();
    },
  });
  let stops = 0;
  const channel = new RunnerChannel(stream, Msg, { what: 'the test runner', stop: () => stops++, maxBytes });
  const got: unknown[] = [];
  channel.on((m) => got.push(m));
  const child = async (bytes: Buffer) => {
    stream.push(bytes);
    await new Promise((r) => setImmediate(r));
  };
  return { channel, got, child, stops: () => stops, stream, sent: () => new FrameDecoder(1 << 20).push(Buffer.concat(written)) };
}

describe('RunnerChannel', () => {
  it('hands well-formed messages to its handlers and sends frames', async () => {
    const t = setup();
    await t.child(Buffer.concat([encodeFrame({ type: 'ready' }), encodeFrame({ type: 'answer', callId: 'c', ok: true })]));
    expect(t.got).toEqual([{ type: 'ready' }, { type: 'answer', callId: 'c', ok: true }]);
    t.channel.send({ type: 'run', js: 'x' });
    expect(t.sent()).toEqual([{ type: 'run', js: 'x' }]);
    expect(t.channel.failure).toBeUndefined();
    expect(t.stops()).toBe(0);
  });

  const hostile: Array<[string, Buffer, RegExp]> = [
    ['null (what process.send(null) was)', encodeFrame(null), /invalid message.*type null/],
    ["Node's internal handle ack", encodeFrame({ cmd: 'NODE_HANDLE_ACK' }), /invalid message.*unknown kind/],
    ['a known type of the wrong shape', encodeFrame({ type: 'answer', callId: 7 }), /invalid message.*"answer" message of an unexpected shape/],
    ['garbage bytes', Buffer.from('\x00\x00\x00\x05hello'), /invalid message.*not JSON/],
    ['an oversized header', Buffer.from([0x7f, 0xff, 0xff, 0xff]), /invalid message.*2147483647 bytes is over the 1024-byte limit/],
  ];
  for (const [what, bytes, reason] of hostile)
    it(`ends the runner on ${what}, once, without throwing`, async () => {
      const t = setup();
      await t.child(encodeFrame({ type: 'ready' }));
      await t.child(bytes);
      expect(t.channel.failure).toMatch(/^the test runner sent an invalid message and was stopped/);
      expect(t.channel.failure).toMatch(reason);
      expect(t.stops()).toBe(1);
      expect(t.stream.destroyed).toBe(true);
      // Later bytes, and sends, change nothing.
      t.channel.send({ type: 'run' });
      expect(t.got).toEqual([{ type: 'ready' }]);
      expect(t.stops()).toBe(1);
    });

  it('ends the runner when a handler of the engine throws, and guards event handlers', async () => {
    const t = setup();
    t.channel.on(() => {
      throw new TypeError('boom');
    });
    await t.child(encodeFrame({ type: 'ready' }));
    expect(t.channel.failure).toBe('the engine failed on a message of the test runner (boom); it was stopped');
    expect(t.stops()).toBe(1);
    const u = setup();
    const handler = u.channel.guard((n: number) => {
      if (n) throw new Error('exit handler');
    });
    expect(() => handler(1)).not.toThrow();
    expect(u.channel.failure).toMatch(/exit handler/);
  });

  it('ends the runner, not the engine, for a message it cannot send', () => {
    const t = setup();
    expect(() => t.channel.send({ big: 1n } as object)).not.toThrow();
    expect(t.channel.failure).toMatch(/could not send the test runner a message/);
  });

  it('bounds what all runners hold of unfinished messages together; a runner that ends frees its share', async () => {
    configureRunnerMessageLimit(1);
    try {
      const limit = runnerPendingLimit();
      expect(limit).toBe(8 * 1024 * 1024);
      // A header of a 1 MiB message and most of its body, never finished: each runner holds ~1 MB.
      const half = Buffer.concat([Buffer.from([0, 16, 0, 0]), Buffer.alloc(1_000_000, 0x20)]);
      const runners = Array.from({ length: 9 }, () => setup(1024 * 1024));
      for (const r of runners.slice(0, 8)) await r.child(half);
      // Control: eight fit (8,000,032 bytes ≤ 8 MiB), none stopped.
      expect(runners.slice(0, 8).map((r) => r.stops())).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      await runners[8]!.child(half);
      expect(runners[8]!.stops()).toBe(1);
      expect(runners[8]!.channel.failure).toMatch(/unfinished messages, their limit together/);
      // One runner gone mid-message: its bytes no longer count, so another fits.
      runners[0]!.stream.destroy();
      await new Promise((r) => setImmediate(r));
      const next = setup(1024 * 1024);
      await next.child(half);
      expect(next.stops()).toBe(0);
      for (const r of [...runners, next]) r.stream.destroy();
    } finally {
      configureRunnerMessageLimit(32);
    }
  });
});
