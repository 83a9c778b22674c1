import { describe, expect, it } from 'vitest';
import { PoolRuntime, type PoolLauncher } from '../../../src/engine/domain/pools/pool-runtime.js';

/** A launcher whose launches finish when the test says so. */
function fakeLauncher() {
  let n = 0;
  const pending: Array<{ resolve: (id: string) => void; reject: (e: Error) => void }> = [];
  const ended: string[] = [];
  const launcher: PoolLauncher = {
    launch: () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject })),
    end: async (id) => void ended.push(id),
    onError: () => {},
  };
  const finishAll = async () => {
    for (const p of pending.splice(0)) p.resolve(`b${++n}`);
    await new Promise((r) => setImmediate(r));
  };
  return {
    launcher,
    pending,
    ended,
    finishAll,
    fail: async () => {
      pending.shift()?.reject(new Error('boom'));
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('PoolRuntime (pool rules without browsers)', () => {
  it('fills up to the size at the fill rate and hands out idle browsers first-in first-out', async () => {
    const f = fakeLauncher();
    const now = 1_000_000;
    const rt = new PoolRuntime(3, 2, f.launcher, () => now);
    rt.fill();
    expect(f.pending).toHaveLength(2); // 2 launches a minute allowed
    await f.finishAll();
    expect(rt.idle).toEqual(['b1', 'b2']);
    rt.fill();
    expect(f.pending).toHaveLength(0); // window exhausted
    expect(await rt.take(0)).toBe('b1');
    expect(rt.acquired.has('b1')).toBe(true);
    expect(rt.total).toBe(2);
    rt.stop();
  });

  it('replaces a browser released for reuse at once, and others only when the window allows', async () => {
    const f = fakeLauncher();
    let now = 0;
    const rt = new PoolRuntime(1, 1, f.launcher, () => now);
    rt.fill();
    await f.finishAll();
    const id = (await rt.take(0))!;
    rt.ended(id, false);
    expect(f.pending).toHaveLength(0); // rate: one a minute, already used
    now += 61_000;
    rt.fill();
    expect(f.pending).toHaveLength(1);
    await f.finishAll();
    const id2 = (await rt.take(0))!;
    rt.ended(id2, true); // reuse: replaced without waiting for the window
    expect(f.pending).toHaveLength(1);
    rt.stop();
  });

  it('serves waiters in order, times them out with undefined, and answers them at stop', async () => {
    const f = fakeLauncher();
    const rt = new PoolRuntime(1, 10, f.launcher, () => 0);
    const first = rt.take(5_000);
    const timedOut = await rt.take(10);
    expect(timedOut).toBeUndefined();
    await f.finishAll();
    expect(await first).toBe('b1');
    const waiting = rt.take(5_000);
    rt.stop();
    expect(await waiting).toBeUndefined();
  });

  it('stops only once a launch in flight has settled and the browser it started has ended', async () => {
    const f = fakeLauncher();
    const rt = new PoolRuntime(1, 10, f.launcher, () => 0);
    rt.fill();
    expect(f.pending).toHaveLength(1);
    let stopped = false;
    const stopping = rt.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    await f.finishAll();
    await stopping;
    expect(f.ended).toEqual(['b1']);
    expect(rt.idle).toEqual([]);
  });

  it('shrinks by ending idle browsers and puts back a browser whose hand-over failed', async () => {
    const f = fakeLauncher();
    const rt = new PoolRuntime(3, 10, f.launcher, () => 0);
    rt.fill();
    await f.finishAll();
    const taken = (await rt.take(0))!;
    rt.giveBack(taken);
    expect(rt.idle).toContain(taken);
    rt.resize(1, 10);
    expect(rt.idle).toHaveLength(1);
    expect(f.ended).toHaveLength(2);
    rt.stop();
  });

  it('backs off after a failed launch instead of retrying in a loop', async () => {
    const f = fakeLauncher();
    const rt = new PoolRuntime(1, 100, f.launcher, () => 0);
    rt.fill();
    await f.fail();
    rt.fill();
    rt.fill();
    expect(f.pending).toHaveLength(0);
    rt.stop();
  });
});
