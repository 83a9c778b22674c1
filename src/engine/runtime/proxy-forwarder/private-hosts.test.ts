import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_HOSTS, NO_PRIVATE_HOSTS, PrivateHostError, privateHosts } from './private-hosts.js';

/** The reason an entry is refused, or undefined when it parses. */
const reason = (entry: string) => {
  try {
    privateHosts([entry]);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(PrivateHostError);
    return (err as PrivateHostError).reason;
  }
};

describe('privateHosts: parsing', () => {
  it('accepts names, wildcards over private suffixes, IPs and canonical private CIDRs', () => {
    for (const e of [
      'intranet',
      'wiki.corp',
      'WIKI.Corp:8080',
      '*.corp.example.com',
      '203.0.113.5',
      '10.0.0.1:22',
      '[fd00::1]',
      '[fd00::1]:443',
      '10.1.0.0/16',
      'fd12:3456::/32',
      ...DEFAULT_PRIVATE_HOSTS,
    ]) {
      expect(reason(e), e).toBeUndefined();
    }
  });

  it('refuses wildcards over public suffixes or single labels, and stray wildcards', () => {
    expect(reason('*.com')).toMatch(/single label/);
    expect(reason('*.co.uk')).toMatch(/public suffix 'co.uk'/);
    expect(reason('*.github.io')).toMatch(/public suffix 'github.io'/);
    expect(reason('a.*.corp')).toMatch(/wildcard other than one leading/);
  });

  it('refuses public, loopback and non-canonical ranges, and ranges with ports or brackets', () => {
    expect(reason('8.8.0.0/16')).toMatch(/not inside the private ranges/);
    expect(reason('127.0.0.0/8')).toMatch(/not inside the private ranges/);
    expect(reason('0.0.0.0/0')).toMatch(/not inside the private ranges/);
    expect(reason('10.0.0.0/7')).toMatch(/not inside the private ranges/);
    expect(reason('10.0.0.1/8')).toMatch(/not canonical/);
    expect(reason('fd00::1/8')).toMatch(/not canonical/);
    expect(reason('10.0.0.0/33')).toMatch(/prefix length above 32/);
    expect(reason('10.0.0.0/08')).toMatch(/not a CIDR range/);
    expect(reason('[fd00::]/8')).toMatch(/in brackets/);
    expect(reason('10.0.0.0/8:80')).toMatch(/with a port/);
    expect(reason('http://wiki.corp/')).toMatch(/URL or path/);
  });

  it('refuses bad IPs, ports and names', () => {
    expect(reason('')).toBe('is empty');
    expect(reason('a b')).toBe('contains whitespace');
    expect(reason('fd00::1')).toMatch(/without brackets: write \[fd00::1\]/);
    expect(reason('[10.0.0.1]')).toMatch(/not an IPv6 address in brackets/);
    expect(reason('0.0.0.0')).toMatch(/not a unicast/);
    expect(reason('224.0.0.1')).toMatch(/not a unicast/);
    expect(reason('[ff02::1]')).toMatch(/not a unicast/);
    expect(reason('wiki.corp:0')).toMatch(/invalid port/);
    expect(reason('wiki.corp:65536')).toMatch(/invalid port/);
    expect(reason('[fd00::1]:x')).toMatch(/invalid port/);
    expect(reason('10.0.0.256')).toMatch(/^is not a (hostname|valid IP address)/);
    expect(reason('wiki.123')).toMatch(/^is not a (hostname|valid IP address)/);
    expect(reason('under_score-ok.corp')).toBeUndefined();
    expect(reason('bad!name')).toMatch(/not a hostname/);
  });

  it('names the index of the first bad entry', () => {
    try {
      privateHosts(['wiki.corp', '*.com', 'also bad']);
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ index: 1, entry: '*.com' });
    }
  });
});

describe('privateHosts: matching', () => {
  const p = privateHosts(['wiki.corp', '*.corp.example.com', 'db.corp:5432', '10.1.0.0/16', '203.0.113.5', '[fd00::1]:443', 'bücher.corp']);

  it('matches names exactly or by wildcard suffix, not the suffix itself', () => {
    expect(p.matches('WIKI.corp.', 80)).toBe(true);
    expect(p.matches('a.b.corp.example.com', 443)).toBe(true);
    expect(p.matches('corp.example.com', 443)).toBe(false);
    expect(p.matches('xcorp.example.com', 443)).toBe(false);
    expect(p.matches('xn--bcher-kva.corp', 80)).toBe(true);
  });

  it('honours ports on names and IPs', () => {
    expect(p.matches('db.corp', 5432)).toBe(true);
    expect(p.matches('db.corp', 5433)).toBe(false);
    expect(p.matches('[fd00::1]', 443)).toBe(true);
    expect(p.matches('fd00::1', 80)).toBe(false);
  });

  it('matches IP and CIDR entries only against IP literals', () => {
    expect(p.matches('10.1.255.255', 1)).toBe(true);
    expect(p.matches('10.2.0.0', 1)).toBe(false);
    expect(p.matches('203.0.113.5', 1)).toBe(true);
    expect(p.matches('203.0.113.6', 1)).toBe(false);
    expect(NO_PRIVATE_HOSTS.matches('10.1.0.1', 1)).toBe(false);
  });
});
