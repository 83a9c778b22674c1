/**
 * The host-name part of a session's destination patterns — `network.private_hosts`
 * (private-hosts.ts) and `network.proxy_routes` (proxy-routes.ts) take the same names: an exact
 * name (`wiki.corp`, also one label) or one leading `*.` over one (`*.example.com`), IDN written
 * either way and kept as ASCII (what Chromium asks its proxy for).
 */
import { domainToASCII } from 'node:url';

/**
 * Checks a lower-cased name pattern; throws a plain Error saying why it is none, ending in
 * `notA` (what else the caller's entries may be, e.g. "a hostname or IP address").
 */
export function hostNamePattern(entry: string, notA: string): { wildcard: boolean; ascii: string } {
  const wildcard = entry.startsWith('*.');
  const name = wildcard ? entry.slice(2) : entry;
  if (name.includes('*')) throw new Error('has a wildcard other than one leading "*." (such as *.corp.example.com)');
  const ascii = domainToASCII(name);
  const labels = ascii.split('.');
  if (!ascii || ascii.length > 253 || labels.some((l) => !/^[a-z0-9_-]{1,63}$/.test(l))) throw new Error(`is not ${notA}`);
  // The URL parser reads a name ending in a number as an IPv4 address (and refuses it when it is not one).
  if (/^(\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1])) throw new Error('is not a valid IP address or hostname');
  return { wildcard, ascii };
}
