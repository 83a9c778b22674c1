/**
 * `network.private_hosts` as the docs table it is (private-hosts.test.ts covers the parser case by case): which
 * entries are accepted, why each kind of bad one is refused (naming it), and what a destination
 * must look like to match — IP and CIDR entries only match IP literals, wildcards only
 * subdomains, ports only their port.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_HOSTS, PrivateHostError, privateHosts } from './private-hosts.js';

function refusal(entry: string): PrivateHostError {
  try {
    privateHosts(['wiki.corp', entry]);
  } catch (err) {
    return err as PrivateHostError;
  }
  throw new Error(`'${entry}' was accepted`);
}

describe('private hosts', () => {
  it('accepts the documented kinds of entry', () => {
    const ok = [
      ...DEFAULT_PRIVATE_HOSTS,
      'wiki.corp.example.com',
      'intranet',
      'Wiki.Corp:8443',
      '*.corp.example.com',
      '*.services.example.ts.net',
      '*.corp.internal',
      'bücher.corp',
      '10.1.2.3',
      '10.1.2.3:8080',
      '127.0.0.2',
      '[fd00::1]',
      '[fd00::1]:8443',
      '10.20.0.0/16',
      '192.168.1.0/24',
      '100.100.0.0/16',
      'fd12:3456::/32',
      '10.0.0.1/32',
    ];
    expect(() => privateHosts(ok)).not.toThrow();
    expect(() => privateHosts([])).not.toThrow();
  });

  it('refuses each kind of bad entry, naming it and its position', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /is empty/],
      [' wiki.corp', /whitespace/],
      ['8.8.8.0/24', /not inside the private ranges/],
      ['127.0.0.0/8', /not inside the private ranges/],
      ['169.254.0.0/16', /not inside the private ranges/],
      ['0.0.0.0/0', /not inside the private ranges/],
      ['::/0', /not inside the private ranges/],
      ['fe80::/10', /not inside the private ranges/],
      ['2001:db8::/32', /not inside the private ranges/],
      ['10.0.0.0/7', /not inside the private ranges/],
      ['10.1.0.0/8', /not canonical/],
      ['fd00::1/8', /not canonical/],
      ['10.0.0.0/33', /prefix length above 32/],
      ['10.0.0.0/08', /not a CIDR range/],
      ['10.0.0.0/8:80', /cannot carry a port/],
      ['[fd00::]/8', /without them/],
      ['fd00::1', /without brackets: write \[fd00::1\]/],
      ['[10.0.0.1]', /not an IPv6 address in brackets/],
      ['[fd00::1]:0', /invalid port/],
      ['wiki.corp:70000', /invalid port/],
      ['wiki.corp:', /invalid port/],
      ['0.0.0.0', /not a unicast address/],
      ['[::]', /not a unicast address/],
      ['224.0.0.1', /not a unicast address/],
      ['010.0.0.1', /not a valid IP address/],
      ['1.2.3', /not a valid IP address/],
      ['*.com', /single label/],
      ['*.co.uk', /public suffix 'co.uk'/],
      ['*.github.io', /public suffix 'github.io'/],
      ['*.ts.net', /public suffix 'ts.net'/],
      ['*wiki.corp', /wildcard other than one leading/],
      ['*.*.corp.example', /wildcard other than one leading/],
      ['wiki..corp', /not a hostname/],
      ['http://wiki.corp', /not a hostname, IP address or CIDR range/],
      ['wiki.corp/path', /not a hostname, IP address or CIDR range/],
      ['fe80::1%eth0/64', /not a CIDR range/],
    ];
    for (const [entry, why] of cases) {
      const err = refusal(entry);
      expect(err, entry).toBeInstanceOf(PrivateHostError);
      expect(err.index, entry).toBe(1);
      expect(err.entry, entry).toBe(entry);
      expect(err.message, entry).toMatch(why);
      expect(err.message, entry).toContain(`'${entry}'`);
    }
  });

  it('matches CIDR and IP entries against IP literals only', () => {
    const p = privateHosts(DEFAULT_PRIVATE_HOSTS);
    expect(p.matches('10.2.3.4', 80)).toBe(true);
    expect(p.matches('172.31.255.255', 443)).toBe(true);
    expect(p.matches('172.32.0.1', 443)).toBe(false);
    expect(p.matches('192.168.0.10', 80)).toBe(true);
    expect(p.matches('100.64.0.1', 80)).toBe(true);
    expect(p.matches('100.128.0.1', 80)).toBe(false);
    expect(p.matches('[fd7a:115c:a1e0::1]', 443)).toBe(true);
    expect(p.matches('fd7a:115c:a1e0::1', 443)).toBe(true); // CONNECT authorities arrive unbracketed
    expect(p.matches('[::ffff:a00:1]', 80)).toBe(true); // IPv4-mapped: the IPv4 it is
    expect(p.matches('8.8.8.8', 80)).toBe(false);
    expect(p.matches('127.0.0.1', 80)).toBe(false);
    // A name is never matched by an address rule, whatever it resolves to.
    expect(p.matches('router.lan', 80)).toBe(false);
    expect(p.matches('localhost', 80)).toBe(false);

    const exact = privateHosts(['127.0.0.2', '[fd00::1]:8443', '10.9.9.9:8080']);
    expect(exact.matches('127.0.0.2', 1234)).toBe(true);
    expect(exact.matches('127.0.0.3', 1234)).toBe(false);
    expect(exact.matches('[fd00::1]', 8443)).toBe(true);
    expect(exact.matches('[fd00:0::1]', 8443)).toBe(true);
    expect(exact.matches('[fd00::1]', 443)).toBe(false);
    expect(exact.matches('10.9.9.9', 8080)).toBe(true);
    expect(exact.matches('10.9.9.9', 80)).toBe(false);
  });

  it('matches hostnames exactly or by wildcard suffix, case-insensitively, with an optional port', () => {
    const p = privateHosts(['Wiki.Corp', 'git.corp:8443', '*.svc.corp.example', 'intranet', 'bücher.corp']);
    expect(p.matches('wiki.corp', 80)).toBe(true);
    expect(p.matches('WIKI.corp.', 443)).toBe(true);
    expect(p.matches('www.wiki.corp', 80)).toBe(false);
    expect(p.matches('git.corp', 8443)).toBe(true);
    expect(p.matches('git.corp', 443)).toBe(false);
    expect(p.matches('a.svc.corp.example', 443)).toBe(true);
    expect(p.matches('a.b.svc.corp.example', 443)).toBe(true);
    expect(p.matches('svc.corp.example', 443)).toBe(false);
    expect(p.matches('evilsvc.corp.example', 443)).toBe(false);
    expect(p.matches('intranet', 80)).toBe(true);
    expect(p.matches('xn--bcher-kva.corp', 80)).toBe(true);
    // A hostname entry never matches an address.
    expect(privateHosts(['localhost']).matches('127.0.0.1', 80)).toBe(false);
    expect(privateHosts([]).matches('10.0.0.1', 80)).toBe(false);
  });
});
