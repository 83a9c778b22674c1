import { describe, expect, it } from 'vitest';
import { AllowedHostError, allowedHosts } from './allowed-hosts.js';

function refusal(entries: string[]): { index: number; message: string } {
  try {
    allowedHosts(entries);
  } catch (err) {
    expect(err).toBeInstanceOf(AllowedHostError);
    return { index: (err as AllowedHostError).index, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('allowedHosts matching', () => {
  const list = allowedHosts(['example.com', '*.api.example.net', 'only.example.org:8443', '10.1.2.3', '[2001:db8::1]:443', 'bücher.example']);

  it('exact names on any port unless one is given; a wildcard covers subdomains at any depth, not the name', () => {
    expect(list.allows('example.com', 80)).toBe(true);
    expect(list.allows('EXAMPLE.com.', 443)).toBe(true);
    expect(list.allows('www.example.com', 443)).toBe(false);
    expect(list.allows('v1.api.example.net', 443)).toBe(true);
    expect(list.allows('deep.v1.api.example.net', 80)).toBe(true);
    expect(list.allows('api.example.net', 443)).toBe(false);
    expect(list.allows('evilapi.example.net', 443)).toBe(false);
    expect(list.allows('only.example.org', 8443)).toBe(true);
    expect(list.allows('only.example.org', 443)).toBe(false);
    expect(list.allows('xn--bcher-kva.example', 443)).toBe(true);
  });

  it('IP literals match only themselves: no name is matched by its address, no address by a name', () => {
    expect(list.allows('10.1.2.3', 80)).toBe(true);
    expect(list.allows('10.1.2.4', 80)).toBe(false);
    expect(list.allows('[2001:db8::1]', 443)).toBe(true);
    expect(list.allows('2001:db8:0::1', 443)).toBe(true);
    expect(list.allows('[2001:db8::1]', 80)).toBe(false);
    // A wildcard never covers an address (`*.3` is no pattern anyway; this is the matcher's own rule).
    expect(allowedHosts(['*.localhost']).allows('127.0.0.1', 80)).toBe(false);
    expect(allowedHosts(['localhost']).allows('127.0.0.1', 80)).toBe(false);
    expect(allowedHosts(['127.0.0.1']).allows('localhost', 80)).toBe(false);
  });
});

describe('allowedHosts entries', () => {
  it('refuses what is not a host pattern, naming the entry', () => {
    expect(refusal(['ok.example', 'https://a.example/'])).toEqual({
      index: 1,
      message: "'https://a.example/' is not a host (CIDR ranges, URLs and paths are not allowlist entries)",
    });
    expect(refusal(['10.0.0.0/8']).message).toMatch(/CIDR ranges/);
    expect(refusal(['a.example:0']).message).toBe("'a.example:0' has an invalid port (1-65535)");
    expect(refusal(['a.example:99999']).message).toMatch(/invalid port/);
    expect(refusal(['2001:db8::1']).message).toBe("'2001:db8::1' is an IPv6 address without brackets: write [2001:db8::1]");
    expect(refusal(['*.*.example']).message).toMatch(/wildcard other than one leading/);
    expect(refusal(['a b']).message).toMatch(/whitespace/);
    expect(refusal(['']).message).toMatch(/is empty/);
    expect(refusal(Array.from({ length: 101 }, (_, i) => `h${i}.example`)).message).toMatch(/at most 100/);
  });
});
