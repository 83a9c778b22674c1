import { describe, expect, it } from 'vitest';
import { clipPath, clipText, domainOf, serviceOf } from './audit-record.js';

describe('audit record fields', () => {
  it('takes the first path segment as the service', () => {
    expect(serviceOf('/browsers/abc/cdp?x=1')).toBe('browsers');
    expect(serviceOf('/browsers?limit=1')).toBe('browsers');
    expect(serviceOf('/healthz')).toBe('healthz');
    expect(serviceOf('/')).toBe('');
    expect(serviceOf('/?x=/a')).toBe('');
    expect(serviceOf('/' + 's'.repeat(100))).toHaveLength(64);
  });

  it('takes the Host without its port as the domain, IPv6 brackets kept', () => {
    expect(domainOf('api.example.com:8420')).toBe('api.example.com');
    expect(domainOf('API.Example.COM')).toBe('api.example.com');
    expect(domainOf('[::1]:80')).toBe('[::1]');
    expect(domainOf('[fd00::1]')).toBe('[fd00::1]');
    expect(domainOf(undefined)).toBe('');
    expect(domainOf('')).toBe('');
    // The memo of the last Host must not leak one answer into the next.
    expect(domainOf('a.test:1')).toBe('a.test');
    expect(domainOf('b.test:1')).toBe('b.test');
    expect(domainOf('a.test:1')).toBe('a.test');
  });

  it('keeps a malformed Host whole (lowercased) but clipped', () => {
    expect(domainOf('a:b:c')).toBe('a:b:c');
    expect(domainOf('x'.repeat(300))).toHaveLength(255);
  });

  it('caps paths at 2048 and free text at 512 characters', () => {
    expect(clipPath('/a'.repeat(2000))).toHaveLength(2048);
    expect(clipPath('/short')).toBe('/short');
    expect(clipText('t'.repeat(600))).toHaveLength(512);
    expect(clipText(undefined)).toBe('');
  });
});
