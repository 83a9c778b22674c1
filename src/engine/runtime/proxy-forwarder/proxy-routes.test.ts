import { describe, expect, it } from 'vitest';
import { ProxyRouteError, proxyRoutes, routePattern } from './proxy-routes.js';

function refusal(routes: Array<{ hosts: string[]; target: string }>): { at: string; message: string } {
  try {
    proxyRoutes(routes);
  } catch (err) {
    expect(err).toBeInstanceOf(ProxyRouteError);
    return { at: (err as ProxyRouteError).at, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('proxyRoutes matching', () => {
  const r = proxyRoutes([
    { hosts: ['*.example.com', 'exact.example.net'], target: 'wide' },
    { hosts: ['*.api.example.com', 'example.com'], target: 'narrow' },
    { hosts: ['login.api.example.com', '10.1.2.3', '[2001:db8::1]', 'bücher.example'], target: 'exact' },
  ]);

  it('an exact host beats a wildcard, a longer suffix beats a shorter one, whatever the order', () => {
    expect(r.match('login.api.example.com')).toBe('exact');
    expect(r.match('v2.api.example.com')).toBe('narrow');
    expect(r.match('deep.v2.api.example.com')).toBe('narrow');
    expect(r.match('www.example.com')).toBe('wide');
    expect(r.match('example.com')).toBe('narrow'); // exact pattern, not *.example.com
    expect(r.match('api.example.com')).toBe('wide'); // *.api.example.com does not cover api.example.com
    expect(r.match('exact.example.net')).toBe('wide');
  });

  it('ignores case, a trailing dot, brackets and IDN spelling; IPs match only exactly', () => {
    expect(r.match('WWW.Example.COM.')).toBe('wide');
    expect(r.match('10.1.2.3')).toBe('exact');
    expect(r.match('10.1.2.4')).toBeUndefined();
    expect(r.match('[2001:db8::1]')).toBe('exact');
    expect(r.match('2001:db8::1')).toBe('exact');
    expect(r.match('xn--bcher-kva.example')).toBe('exact');
    expect(r.match('bücher.example')).toBe('exact');
    expect(r.match('example.org')).toBeUndefined();
    expect(r.match('notexample.com')).toBeUndefined();
  });
});

describe('proxyRoutes validation', () => {
  it('canonicalizes good patterns', () => {
    expect(routePattern('API.Example.com.')).toBe('api.example.com');
    expect(routePattern('*.Corp.example')).toBe('*.corp.example');
    expect(routePattern('[2001:DB8::1]')).toBe('[2001:db8::1]');
    expect(routePattern('intranet')).toBe('intranet');
  });

  it('refuses each kind of bad pattern, naming the route and entry', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /is empty/],
      ['a b.com', /whitespace/],
      ['example.com:443', /carries a port/],
      ['[2001:db8::1]:443', /carries a port/],
      ['2001:db8::1', /without brackets/],
      ['10.0.0.0/8', /CIDR ranges, URLs and paths/],
      ['https://example.com/', /CIDR ranges, URLs and paths/],
      ['a.*.example.com', /wildcard other than one leading/],
      ['*', /wildcard other than one leading/],
      ['*.', /wildcard other than one leading/],
      ['1.2.3.999', /not a (valid IP address|host name or IP address)/],
      ['[nope]', /not an IPv6 address/],
    ];
    for (const [entry, why] of cases) {
      const e = refusal([
        { hosts: ['ok.example'], target: 'a' },
        { hosts: ['fine.example', entry], target: 'b' },
      ]);
      expect(e.at, entry).toBe('[1].hosts[1]');
      expect(e.message, entry).toMatch(why);
    }
  });

  it('refuses a pattern in two routes, an empty host list and too many routes', () => {
    expect(
      refusal([
        { hosts: ['a.example'], target: 'x' },
        { hosts: ['A.example.'], target: 'y' },
      ]),
    ).toEqual({
      at: '[1].hosts[0]',
      message: "'A.example.' is already the pattern of [0].hosts[0]: a pattern may appear in only one route",
    });
    expect(refusal([{ hosts: [], target: 'x' }])).toEqual({ at: '[0].hosts', message: 'must list at least one host' });
    expect(refusal(Array.from({ length: 51 }, (_, i) => ({ hosts: [`h${i}.example`], target: 'x' }))).message).toMatch(/at most 50 routes/);
  });
});
