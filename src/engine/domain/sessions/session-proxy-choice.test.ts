import { describe, expect, it } from 'vitest';
import { proxyChoice } from './session-proxy-choice.js';

const status = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { status: number }).status;
  }
};

describe('typed proxy choice', () => {
  it('maps mode, id, name and the deprecated proxy_id', () => {
    expect(proxyChoice({ mode: 'direct' }, undefined)).toEqual({ mode: 'direct' });
    expect(proxyChoice({ id: 'p1' }, undefined)).toEqual({ selector: 'p1' });
    expect(proxyChoice({ name: 'corp' }, undefined)).toEqual({ selector: { name: 'corp' } });
    expect(proxyChoice(undefined, 'p2')).toEqual({ selector: 'p2' });
    expect(proxyChoice(undefined, undefined)).toEqual({});
  });

  it('wants exactly one key, and not together with proxy_id or disable_default_proxy', () => {
    expect(status(() => proxyChoice({}, undefined))).toBe(400);
    expect(status(() => proxyChoice({ id: 'a', name: 'b' }, undefined))).toBe(400);
    expect(status(() => proxyChoice({ id: 'a' }, 'a'))).toBe(400);
    expect(status(() => proxyChoice({ id: 'a' }, null))).toBe(400);
    expect(status(() => proxyChoice({ mode: 'default' }, undefined, false))).toBe(400);
  });
});
