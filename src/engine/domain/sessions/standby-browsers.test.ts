/**
 * StandbyBrowsers without a browser: the launcher hands out plain objects (the class is generic
 * over the three fields it reads), the clock is a number. Sizing, take/giveBack and stop.
 */
import { describe, expect, it } from 'vitest';
import { StandbyBrowsers, type StandbyBrowser } from './standby-browsers.js';
import { DEFAULT_SHAPE, shapeKey, type StandbyShape } from './standby-shape.js';

interface Fake extends StandbyBrowser {
  ended: boolean;
  frozen: boolean;
}

function setup(budget = { count: 2, memoryMb: 10_000 }) {
  let n = 0;
  let t = 0;
  const discarded: Array<[string, string]> = [];
  const pending: Array<() => void> = [];
  const standby = new StandbyBrowsers<Fake>(
    budget,
    {
      // Each launch resolves when the test says so (one at a time, as the class launches them).
      launch: () => new Promise<Fake>((resolve) => pending.push(() => resolve({ id: `b${++n}`, ended: false, frozen: false }))),
      discard: async (rt, reason) => void discarded.push([rt.id, reason]),
      onError: () => {},
    },
    () => t,
  );
  const settle = async () => {
    while (pending.length) {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { standby, discarded, settle, tick: (ms: number) => (t += ms) };
}

const HEADFUL: StandbyShape = { ...DEFAULT_SHAPE, headless: false };

describe('StandbyBrowsers', () => {
  it('keeps one default browser ready, hands it out once, and refills', async () => {
    const { standby, settle } = setup();
    standby.fill();
    await settle();
    expect(standby.readyIds()).toEqual(['b1']);
    expect(standby.take(DEFAULT_SHAPE)?.id).toBe('b1');
    expect(standby.readyIds()).toEqual([]);
    await settle();
    // One create in the last minute: the default shape wants one, so a fresh one is ready.
    expect(standby.readyIds()).toEqual(['b2']);
    expect(standby.status()).toMatchObject({ claimed: 1, cold: 0, ready: 1 });
  });

  it('skips an ended browser, counts a miss as cold, and takes a given-back one first', async () => {
    const { standby, settle } = setup({ count: 1, memoryMb: 10_000 });
    standby.fill();
    await settle();
    const [id] = standby.readyIds();
    const rt = standby.runtime(id)!;
    rt.ended = true;
    expect(standby.take(DEFAULT_SHAPE)).toBeUndefined();
    expect(standby.status()).toMatchObject({ cold: 1, claimed: 0 });
    await settle();
    const next = standby.take(DEFAULT_SHAPE)!;
    standby.giveBack(DEFAULT_SHAPE, next);
    expect(standby.readyIds()[0]).toBe(next.id);
  });

  it('shares the budget one browser per demanded shape before any gets a second', async () => {
    const { standby, tick } = setup({ count: 2, memoryMb: 10_000 });
    for (let i = 0; i < 3; i++) standby.take(DEFAULT_SHAPE);
    standby.take(HEADFUL);
    const targets = standby.targets();
    expect(targets.get(shapeKey(DEFAULT_SHAPE))).toBe(1);
    expect(targets.get(shapeKey(HEADFUL))).toBe(1);
    // Ten minutes later the headful demand is forgotten; the default shape keeps its floor.
    tick(600_001);
    expect(standby.targets().get(shapeKey(HEADFUL))).toBe(0);
    expect(standby.targets().get(shapeKey(DEFAULT_SHAPE))).toBe(1);
  });

  it('launches nothing without a budget and ends every ready browser at stop', async () => {
    const off = setup({ count: 0, memoryMb: 10_000 });
    off.standby.fill();
    await off.settle();
    expect(off.standby.readyIds()).toEqual([]);
    expect(off.standby.take(DEFAULT_SHAPE)).toBeUndefined();

    const on = setup();
    on.standby.fill();
    await on.settle();
    await on.standby.stop();
    expect(on.standby.readyIds()).toEqual([]);
    expect(on.discarded).toEqual([['b1', 'engine_stopped']]);
  });
});
