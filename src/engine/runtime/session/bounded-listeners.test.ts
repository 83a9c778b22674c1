/**
 * Bounded listeners (the session manager's start listeners, a session's update listeners): a
 * create awaits async listeners, all at once; one that throws or rejects is logged and the
 * others still run; one that never finishes is logged once the bound passes and does not hold
 * the create; unsubscribing works.
 */
import { describe, expect, it } from 'vitest';
import { BoundedListeners } from './bounded-listeners.js';

function recordingLog() {
  const entries: Array<{ level: 'warn' | 'error'; obj: Record<string, unknown>; msg: string }> = [];
  return {
    entries,
    log: {
      warn: (obj: Record<string, unknown>, msg: string) => void entries.push({ level: 'warn', obj, msg }),
      error: (obj: Record<string, unknown>, msg: string) => void entries.push({ level: 'error', obj, msg }),
    } as never,
  };
}

describe('session start listeners', () => {
  it('awaits async listeners together and isolates failures', async () => {
    const { entries, log } = recordingLog();
    const l = new BoundedListeners<{ id: string }>(log, 'session start');
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    l.add(async () => {
      await gate;
      order.push('gated');
    });
    // Runs while the first one still waits: listeners run at the same time, not one after another.
    l.add(async () => {
      order.push('second');
      release();
    });
    l.add(() => {
      throw new Error('sync boom');
    });
    l.add(async () => {
      throw new Error('async boom');
    });
    l.add(() => void order.push('sync'));
    await l.run({ id: 's1' });
    expect(order.sort()).toEqual(['gated', 'second', 'sync']);
    expect(entries.map((e) => [e.level, (e.obj.err as Error).message, e.obj.session])).toEqual([
      ['error', 'sync boom', 's1'],
      ['error', 'async boom', 's1'],
    ]);
    expect(entries.map((e) => e.msg)).toEqual(['session start listener failed', 'session start listener failed']);
  });

  it('goes on without a listener that never finishes, after the bound', async () => {
    const { entries, log } = recordingLog();
    const l = new BoundedListeners<{ id: string }>(log, 'session start', 50);
    let finished = false;
    l.add(() => new Promise<void>(() => {}));
    l.add(async () => void (finished = true));
    await l.run({ id: 's2' });
    expect(finished).toBe(true);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 'warn', obj: { session: 's2', boundMs: 50 } });
  });

  it('stops calling a listener after unsubscribe', async () => {
    const { log } = recordingLog();
    const l = new BoundedListeners<{ id: string }>(log, 'session start');
    let calls = 0;
    const off = l.add(() => void calls++);
    await l.run({ id: 'a' });
    off();
    await l.run({ id: 'b' });
    expect(calls).toBe(1);
  });
});
