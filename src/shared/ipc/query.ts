/**
 * Query-string encoding shared by both transports, matching the official client (wire §1.4):
 * arrays comma-joined, booleans as true/false, undefined and empty arrays omitted. Objects
 * such as `tags` are flattened by the caller into `tags[key]` entries before encoding.
 */
import type { Query } from './contract.js';

export function encodeQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length) params.append(k, v.join(','));
    } else params.append(k, String(v));
  }
  const s = params.toString().replace(/\+/g, '%20');
  return s ? `?${s}` : '';
}

/** `{team: 'a'}` → `{'tags[team]': 'a'}` (deepObject, as the client sends tag filters). */
export function flattenObjectParam(name: string, obj: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [`${name}[${k}]`, v]));
}
