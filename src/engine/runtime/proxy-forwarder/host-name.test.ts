import { describe, expect, it } from 'vitest';
import { hostNamePattern } from './host-name.js';

describe('hostNamePattern', () => {
  it('gives exact names and one leading wildcard in ASCII', () => {
    expect(hostNamePattern('intranet', 'x')).toEqual({ wildcard: false, ascii: 'intranet' });
    expect(hostNamePattern('*.corp.example', 'x')).toEqual({ wildcard: true, ascii: 'corp.example' });
    expect(hostNamePattern('bücher.example', 'x')).toEqual({ wildcard: false, ascii: 'xn--bcher-kva.example' });
  });

  it('refuses other wildcards, bad labels and names the URL parser reads as IPv4', () => {
    expect(() => hostNamePattern('a.*.example', 'x')).toThrow(/wildcard other than one leading/);
    expect(() => hostNamePattern('wiki..corp', 'a hostname or IP address')).toThrow(/^is not a hostname or IP address$/);
    expect(() => hostNamePattern('1.2.3', 'x')).toThrow(/not a valid IP address/);
    expect(() => hostNamePattern('010.0.0.1', 'x')).toThrow(/not a valid IP address/);
    expect(() => hostNamePattern('example.0x1f', 'x')).toThrow(/^is not x$/);
  });
});
