import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineSlot, SessionScope } from './session-scope.js';
import type { SessionHandle } from './session-handle.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionScope', () => {
  it('closes what it owns in reverse order of acquisition, slots included', async () => {
    const closed: string[] = [];
    const scope = new SessionScope({ id: 's1' });
    scope.own('dirs', (r) => void closed.push(r));
    scope.own('jail', (r) => void closed.push(r));
    const cdp = defineSlot(
      'cdp',
      () => 'cdp-client',
      (v) => void closed.push(v),
    );
    expect(scope.get(cdp)).toBe('cdp-client');
    scope.defer('browser', () => void closed.push('browser'));
    await scope.close();
    expect(closed).toEqual(['browser', 'cdp-client', 'jail', 'dirs']);
  });

  it('closes exactly once however often close is called', async () => {
    const close = vi.fn();
    const scope = new SessionScope({ id: 's1' });
    scope.own({}, close);
    const a = scope.close('deleted');
    const b = scope.close('timed out');
    expect(a).toBe(b);
    await Promise.all([a, b, scope.close()]);
    expect(close).toHaveBeenCalledTimes(1);
    expect(scope.closed).toBe(true);
    expect((scope.signal.reason as Error).message).toContain('deleted');
  });

  it('bounds each step, logs the one that hangs, goes on, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const log = vi.fn();
    const order: string[] = [];
    const scope = new SessionScope({ id: 's1', stepTimeoutMs: 1000, log });
    scope.defer('first', () => void order.push('first'));
    scope.defer('hangs', () => new Promise<void>(() => {}));
    const done = scope.close();
    await vi.advanceTimersByTimeAsync(999);
    expect(order).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(order).toEqual(['first']);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('closing hangs took over 1000 ms'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('clears the timer of a step that finishes in time', async () => {
    vi.useFakeTimers();
    const scope = new SessionScope({ id: 's1' });
    scope.defer('quick', async () => {});
    await scope.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('logs a failing step (sync or async) and still runs the rest', async () => {
    const log = vi.fn();
    const ran: string[] = [];
    const scope = new SessionScope({ id: 's1', log });
    scope.defer('last', () => void ran.push('last'));
    scope.defer('throws', () => {
      throw new Error('boom');
    });
    scope.defer('rejects', () => Promise.reject(new Error('bang')));
    await scope.close();
    expect(ran).toEqual(['last']);
    expect(log.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining('closing rejects failed: bang'),
      expect.stringContaining('closing throws failed: boom'),
    ]);
  });

  it('closes at once what is handed to it after it closed', async () => {
    const scope = new SessionScope({ id: 's1' });
    await scope.close();
    const close = vi.fn();
    const late = { pid: 42 };
    expect(scope.own(late, close)).toBe(late);
    await vi.waitFor(() => expect(close).toHaveBeenCalledWith(late));
  });

  it('makes a slot once, hands it the scope, and answers 404 session_ended after close', async () => {
    const create = vi.fn((s: SessionScope) => ({ session: s.handle.id }));
    const slot = defineSlot('svc', create);
    const scope = new SessionScope({ id: 's1' });
    expect(() => scope.get(slot)).toThrow(/before the session had a handle/);
    scope.attach({ id: 's1' } as SessionHandle);
    create.mockClear();
    expect(scope.peek(slot)).toBeUndefined();
    const a = scope.get(slot);
    expect(scope.get(slot)).toBe(a);
    expect(scope.peek(slot)).toBe(a);
    expect(create).toHaveBeenCalledTimes(1);
    await scope.close();
    expect(scope.peek(slot)).toBeUndefined();
    expect(() => scope.get(slot)).toThrow(expect.objectContaining({ status: 404, code: 'session_ended' }));
    const fresh = defineSlot('other', () => 1);
    expect(() => scope.get(fresh)).toThrow(expect.objectContaining({ status: 404, code: 'session_ended' }));
  });

  it('fences the create: past its deadline or once closing, fence throws', async () => {
    const deadline = new AbortController();
    const scope = new SessionScope({ id: 's1', deadline: deadline.signal });
    expect(() => scope.fence()).not.toThrow();
    expect(scope.createSignal.aborted).toBe(false);
    expect(scope.createSignal).toBe(scope.createSignal);
    deadline.abort(new Error('create took longer than 30 s'));
    expect(() => scope.fence()).toThrow('create took longer than 30 s');
    expect(scope.createSignal.aborted).toBe(true);
    scope.createDone();
    expect(() => scope.fence()).not.toThrow();
    await scope.close();
    expect(() => scope.fence()).toThrow(expect.objectContaining({ code: 'session_ended' }));
  });
});
