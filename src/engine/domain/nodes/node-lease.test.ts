import { describe, expect, it } from 'vitest';
import { LeaseWatch, leaseKeyOf, leaseObjId } from './node-lease.js';

const GRACE = 1_500;
const SETTLE = 3_000;
/** A judge that took its own lease at 0 and has held it since. */
const judge = () => new LeaseWatch(GRACE, SETTLE);
const free = (nodeId: string) => ({ nodeId, held: false });
const held = (nodeId: string) => ({ nodeId, held: true });

describe('a node lease', () => {
  it('is keyed by the node id: stable, an int4, and shown unsigned the way pg_locks shows it', () => {
    const k = leaseKeyOf('3f2c0b1e-node');
    expect(leaseKeyOf('3f2c0b1e-node')).toBe(k);
    expect(leaseKeyOf('another-node')).not.toBe(k);
    expect(k).toBeGreaterThanOrEqual(-(2 ** 31));
    expect(k).toBeLessThan(2 ** 31);
    expect(leaseObjId(-1)).toBe(2 ** 32 - 1);
    expect(leaseObjId(5)).toBe(5);
  });
});

describe('LeaseWatch', () => {
  it('declares a node lost once its lock was seen free on sweeps at least the grace apart', () => {
    const w = judge();
    w.observe(SETTLE, 0, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(SETTLE + GRACE - 1, 0, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(SETTLE + GRACE, 0, [free('b')]);
    expect(w.isLost('b')).toBe(true);
  });

  it('forgives a lock taken again within the grace (a dropped connection that came back)', () => {
    const w = judge();
    w.observe(SETTLE, 0, [free('b')]);
    w.observe(SETTLE + 1000, 0, [held('b')]);
    w.observe(SETTLE + 2000, 0, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(SETTLE + 3000, 0, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(SETTLE + 3500, 0, [free('b')]);
    expect(w.isLost('b')).toBe(true);
  });

  it('judges nobody while its own lease is missing or fresh, and starts over after it', () => {
    const w = judge();
    // No own lease: a free lock proves nothing (this node may be the one cut off).
    w.observe(10_000, undefined, [free('b')]);
    w.observe(20_000, undefined, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    // Own lease just re-taken (a database restart): the others get the settle time to come back.
    w.observe(20_000, 19_000, [free('b')]);
    w.observe(21_000, 19_000, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    // Settled: the grace counts from the first sighting after it.
    w.observe(22_000, 19_000, [free('b')]);
    w.observe(23_000, 19_000, [free('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(23_500, 19_000, [free('b')]);
    expect(w.isLost('b')).toBe(true);
  });

  it('takes a lost node back once its lock is held again, and forgets nodes that are gone', () => {
    const w = judge();
    w.observe(SETTLE, 0, [free('b'), held('c')]);
    w.observe(SETTLE + GRACE, 0, [free('b'), held('c')]);
    expect(w.isLost('b')).toBe(true);
    expect(w.isLost('c')).toBe(false);
    w.observe(SETTLE + 2 * GRACE, 0, [held('b')]);
    expect(w.isLost('b')).toBe(false);
    w.observe(SETTLE + 3 * GRACE, 0, [free('b')]);
    w.observe(SETTLE + 4 * GRACE, 0, [free('b')]);
    expect(w.isLost('b')).toBe(true);
    w.observe(SETTLE + 5 * GRACE, 0, []);
    expect(w.isLost('b')).toBe(false);
  });
});
