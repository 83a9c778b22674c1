import { describe, expect, it } from 'vitest';
import { bypassRules, isLoopbackHost } from './bypass-rules.js';

describe('isLoopbackHost', () => {
  it('knows localhost, 127/8 and ::1 in their spellings', () => {
    for (const h of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['localhost.example.com', '128.0.0.1', '::2', '10.0.0.1', 'mylocalhost']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('bypassRules', () => {
  const remote = (entries: string[]) => bypassRules(entries, 'proxy.example.net');

  it('matches exact hosts, case- and trailing-dot-insensitively', () => {
    const r = remote(['Example.com']);
    expect(r.matches('example.com', 443)).toBe(true);
    expect(r.matches('EXAMPLE.COM.', 80)).toBe(true);
    expect(r.matches('www.example.com', 443)).toBe(false);
    expect(r.matches('notexample.com', 443)).toBe(false);
  });

  it('reads *.domain and .domain as the domain and its subdomains', () => {
    for (const entry of ['*.corp.test', '.corp.test']) {
      const r = remote([entry]);
      expect(r.matches('corp.test', 443), entry).toBe(true);
      expect(r.matches('a.b.corp.test', 443), entry).toBe(true);
      expect(r.matches('evilcorp.test', 443), entry).toBe(false);
    }
  });

  it('treats other * as a wildcard and escapes regex characters', () => {
    const r = remote(['db-*.internal', 'a+b.test']);
    expect(r.matches('db-7.internal', 5432)).toBe(true);
    expect(r.matches('web-7.internal', 5432)).toBe(false);
    expect(r.matches('db-7xinternal', 5432)).toBe(false);
    expect(r.matches('a+b.test', 80)).toBe(true);
    expect(r.matches('aab.test', 80)).toBe(false);
  });

  it('honours ports, and CIDR ranges and bracketed IPv6 literals', () => {
    const r = remote(['example.com:8443', '10.1.0.0/16', '[fd00::1]:22', 'fd00::2']);
    expect(r.matches('example.com', 8443)).toBe(true);
    expect(r.matches('example.com', 443)).toBe(false);
    expect(r.matches('10.1.200.3', 1)).toBe(true);
    expect(r.matches('10.2.0.1', 1)).toBe(false);
    expect(r.matches('[fd00::1]', 22)).toBe(true);
    expect(r.matches('fd00::1', 23)).toBe(false);
    expect(r.matches('fd00::2', 9)).toBe(true);
  });

  it('sends loopback direct only when the upstream proxy is not itself on loopback', () => {
    expect(remote([]).matches('localhost', 3000)).toBe(true);
    expect(remote([]).matches('127.0.0.1', 3000)).toBe(true);
    expect(bypassRules([], '127.0.0.1').matches('localhost', 3000)).toBe(false);
    expect(bypassRules([], '[::1]').matches('127.0.0.1', 3000)).toBe(false);
    expect(bypassRules(['localhost'], '127.0.0.1').matches('localhost', 3000)).toBe(true);
  });
});
