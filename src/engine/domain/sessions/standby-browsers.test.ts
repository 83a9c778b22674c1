/**
 * StandbyBrowsers without a browser: the launcher hands out plain objects (the class is generic
 * over the three fields it reads), the clock is a number. Sizing, parallel launches, a create
 * adopting a launch under way, take/giveBack and stop.
 */
import { describe, expect, it } from 'vitest';
import { StandbyBrowsers, type StandbyBrowser, type StandbyBudget } from './standby-browsers.js';
import { DEFAULT_SHAPE, shapeKey, type StandbyShape } from './standby-shape.js';

interface Fake extends StandbyBrowser {
  ended: boolean;
  frozen: boolean;
}

const tick = () => new Promise((r) => setImmediate(r));

function setup(budget: Partial<StandbyBudget> = {}, cpuIdle?: () => number | undefined) {
  let n = 0;
  let t = 0;
  const discarded: Array<[string, string]> = [];
  // Each launch resolves (or fails) when the test says so, oldest first.
  const pending: Array<{ ok: () => void; fail: () => void }> = [];
  const standby = new StandbyBrowsers<Fake>(
    { count: 2, memoryMb: 10_000, launches: 1, ...budget },
    {
      launch: () =>
        new Promise<Fake>((resolve, reject) =>
          pending.push({ ok: () => resolve({ id: `b${++n}`, ended: false, frozen: false }), fail: () => reject(new Error('launch failed')) }),
        ),
      discard: async (rt, reason) => void discarded.push([rt.id, reason]),
      onError: () => {},
    },
    () => t,
    cpuIdle,
  );
  const settle = async () => {
    while (pending.length) {
      pending.shift()!.ok();
      await tick();
    }
  };
  return { standby, discarded, pending, settle, tick: (ms: number) => (t += ms) };
}

const HEADFUL: StandbyShape = { ...DEFAULT_SHAPE, headless: false };
const readyOf = (c: ReturnType<StandbyBrowsers<Fake>['take']>) => (c?.from === 'ready' ? c.ready : undefined);

describe('StandbyBrowsers', () => {
  it('keeps one default browser ready, hands it out once, and starts the refill at the claim', async () => {
    const { standby, settle } = setup();
    standby.fill();
    await settle();
    expect(standby.readyIds()).toEqual(['b1']);
    expect(readyOf(standby.take(DEFAULT_SHAPE))?.id).toBe('b1');
    expect(standby.readyIds()).toEqual([]);
    // The refill is under way before the claiming create has done anything else.
    expect(standby.status().launching).toBe(1);
    await settle();
    expect(standby.readyIds()).toEqual(['b2']);
    expect(standby.status()).toMatchObject({ claimed: 1, adopted: 0, cold: 0, ready: 1 });
  });

  it('a create that finds none ready adopts the launch under way: it never becomes ready, and only one create gets it', async () => {
    const { standby, pending } = setup({ count: 1 });
    standby.fill();
    expect(pending).toHaveLength(1);
    const first = standby.take(DEFAULT_SHAPE);
    expect(first?.from).toBe('launch');
    // The launch is promised to the first create: a second finds nothing it may adopt and goes cold.
    expect(standby.take(DEFAULT_SHAPE)).toBeUndefined();
    pending.shift()!.ok();
    const rt = first?.from === 'launch' ? await first.launching : undefined;
    expect(rt?.id).toBe('b1');
    expect(standby.readyIds()).not.toContain('b1');
    expect(standby.status()).toMatchObject({ claimed: 0, adopted: 1, cold: 1 });
  });

  it('an adopted launch that fails leaves the create to launch cold and counts it so', async () => {
    const { standby, pending } = setup({ count: 1 });
    standby.fill();
    const claim = standby.take(DEFAULT_SHAPE);
    pending.shift()!.fail();
    expect(claim?.from === 'launch' ? await claim.launching : 'not adopted').toBeUndefined();
    expect(standby.status()).toMatchObject({ adopted: 0, cold: 1 });
  });

  it('runs up to `launches` launches at once toward the depth demand calls for', async () => {
    const { standby, pending, settle } = setup({ count: 10, launches: 2 });
    // Four creates within one launch time: the shape wants four ready.
    for (let i = 0; i < 4; i++) standby.take(DEFAULT_SHAPE);
    expect(standby.targets().get(shapeKey(DEFAULT_SHAPE))).toBe(4);
    expect(pending).toHaveLength(2);
    expect(standby.status().launching).toBe(2);
    await settle();
    // Two of the four creates adopted the first two launches; the ready depth is four after.
    expect(standby.readyIds()).toHaveLength(4);
    expect(standby.status()).toMatchObject({ adopted: 2, cold: 2 });
  });

  it('skips an ended browser, counts a miss as cold, and takes a given-back one first', async () => {
    const { standby, settle } = setup({ count: 1 });
    standby.fill();
    await settle();
    const [id] = standby.readyIds();
    standby.runtime(id)!.ended = true;
    // The ended one is skipped, and with no launch under way the create goes cold.
    expect(standby.take(DEFAULT_SHAPE)).toBeUndefined();
    expect(standby.status()).toMatchObject({ cold: 1, claimed: 0 });
    await settle();
    const next = readyOf(standby.take(DEFAULT_SHAPE))!;
    standby.giveBack(DEFAULT_SHAPE, next);
    expect(standby.readyIds()[0]).toBe(next.id);
  });

  it('shares the budget one browser per demanded shape before any gets a second', async () => {
    const { standby, tick } = setup({ count: 2 });
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

  it('the memory budget bounds the depth', () => {
    const { standby } = setup({ count: 10, memoryMb: 450 });
    for (let i = 0; i < 5; i++) standby.take(DEFAULT_SHAPE);
    // 200 MB per headless browser: two fit.
    expect(standby.targets().get(shapeKey(DEFAULT_SHAPE))).toBe(2);
  });

  it('launches nothing without a budget and ends every ready browser at stop', async () => {
    const off = setup({ count: 0 });
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

  it('a launch still under way at stop ends as soon as it is up', async () => {
    const { standby, pending, discarded } = setup();
    standby.fill();
    const stopped = standby.stop();
    pending.shift()!.ok();
    await stopped;
    expect(discarded).toEqual([['b1', 'standby_stopped']]);
  });

  describe('launches at once follow the CPUs', () => {
    // One create that finds a launch under way and two that find nothing: all three waited, and
    // depth from demand wants three; one launch at once to start with.
    async function waitedWith(idle: number | undefined, budget: Partial<StandbyBudget> = { maxLaunches: 3 }) {
      const s = setup({ count: 5, launches: 1, ...budget }, () => idle);
      s.standby.fill();
      for (let i = 0; i < 3; i++) s.standby.take(DEFAULT_SHAPE);
      expect(s.pending).toHaveLength(1);
      s.pending.shift()!.ok();
      await tick();
      await tick();
      return s.standby.status();
    }

    it('one more at once after a launch while creates waited and the CPUs had idle time', async () => {
      const st = await waitedWith(0.5);
      expect(st.launching).toBe(2);
      expect(st.budget).toMatchObject({ launches: 2, launches_min: 1, launches_max: 3 });
    });

    it('no more while the CPUs are saturated, when the CPU is not known, or when the limit is fixed', async () => {
      expect((await waitedWith(0)).launching).toBe(1);
      expect((await waitedWith(undefined)).launching).toBe(1);
      expect((await waitedWith(0.5, {})).launching).toBe(1);
    });

    it('one fewer, never below the floor, once the CPUs are saturated', async () => {
      let idle = 0.5;
      const { standby, pending } = setup({ count: 5, launches: 1, maxLaunches: 3 }, () => idle);
      standby.fill();
      for (let i = 0; i < 3; i++) standby.take(DEFAULT_SHAPE);
      pending.shift()!.ok();
      await tick();
      await tick();
      expect(standby.status().budget.launches).toBe(2);
      idle = 0;
      pending.shift()!.ok();
      await tick();
      expect(standby.status().budget.launches).toBe(1);
      pending.shift()!.ok();
      await tick();
      expect(standby.status().budget.launches).toBe(1);
    });
  });
});
