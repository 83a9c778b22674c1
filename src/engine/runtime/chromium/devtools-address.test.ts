import { describe, expect, it } from 'vitest';
import { devtoolsEndpoint, jailedWsUrl, targetWsUrl } from './devtools-address.js';

describe('DevTools addresses', () => {
  it('reads a loopback endpoint, IPv6 brackets removed', () => {
    expect(devtoolsEndpoint('ws://127.0.0.1:9222/devtools/browser/abc')).toEqual({ host: '127.0.0.1', port: 9222, path: '/devtools/browser/abc' });
    expect(devtoolsEndpoint('ws://[::1]:9333/devtools/browser/x')).toEqual({ host: '::1', port: 9333, path: '/devtools/browser/x' });
  });

  it('reads and writes the jailed ws+unix form', () => {
    const url = jailedWsUrl('/data/s1/sock/devtools.sock', '/devtools/browser/abc');
    expect(url).toBe('ws+unix:///data/s1/sock/devtools.sock:/devtools/browser/abc');
    expect(devtoolsEndpoint(url)).toEqual({ socketPath: '/data/s1/sock/devtools.sock', path: '/devtools/browser/abc' });
  });

  it('points a target URL at the same server in the same form, its id encoded', () => {
    expect(targetWsUrl('ws://127.0.0.1:9222/devtools/browser/abc', 'T1')).toBe('ws://127.0.0.1:9222/devtools/page/T1');
    expect(targetWsUrl('ws://[::1]:9222/devtools/browser/abc', 'T1')).toBe('ws://[::1]:9222/devtools/page/T1');
    expect(targetWsUrl(jailedWsUrl('/s/devtools.sock', '/devtools/browser/abc'), 'a/b?c')).toBe('ws+unix:///s/devtools.sock:/devtools/page/a%2Fb%3Fc');
  });
});
