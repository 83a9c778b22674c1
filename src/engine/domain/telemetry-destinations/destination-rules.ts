/**
 * What a telemetry destination may be (Kernel spec §12), as pure checks: the name, the OTLP/HTTP
 * base endpoint (no signal path, query or fragment) and the headers (HTTP tokens, one spelling
 * per name, canonical `Authorization`-style names, 8 KiB in all). Each failure is a 400 naming
 * the field; a header's value never appears in a message.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

const NAME = /^[a-zA-Z0-9._-]{1,255}$/;
/** Engine ids (domain/ids.ts): 24 lowercase base-36 characters. Names are usable wherever ids are. */
const LOOKS_LIKE_ID = /^[0-9a-z]{24}$/;
const SIGNAL_PATH = /\/v1\/(logs|traces|metrics)\/?$/i;
/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab (no CR/LF: a value cannot start another header). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const MAX_HEADER_BYTES = 8192;

export function checkDestinationName(name: string): string {
  if (!NAME.test(name)) throw DomainError.invalidField('name', 'must be 1 to 255 characters of A-Z a-z 0-9 . _ -');
  if (LOOKS_LIKE_ID.test(name)) throw DomainError.invalidField('name', 'must not look like a destination id (24 lowercase letters and digits)');
  return name;
}

/** The normalized endpoint (WHATWG URL serialization, no trailing slash). */
export function checkEndpoint(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint.trim());
  } catch {
    throw DomainError.invalidField('endpoint', 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw DomainError.invalidField('endpoint', 'must be an http or https URL');
  if (u.username || u.password) throw DomainError.invalidField('endpoint', 'must not carry credentials (use headers)');
  if (u.search || u.hash || endpoint.includes('?') || endpoint.includes('#')) throw DomainError.invalidField('endpoint', 'must not have a query or fragment');
  if (SIGNAL_PATH.test(u.pathname)) throw DomainError.invalidField('endpoint', 'is the base URL without a signal path: /v1/logs is appended by the exporter');
  const out = u.toString().replace(/\/+$/, '');
  if (out.length > 2048) throw DomainError.invalidField('endpoint', 'must be at most 2048 characters');
  return out;
}

/** `x-api-key` → `X-Api-Key`, `authorization` → `Authorization`. */
export function canonicalHeaderName(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1) : p))
    .join('-');
}

/** Headers a destination may not set: the exporter's own framing, or hop-by-hop ones. */
const RESERVED = new Set([
  'Content-Type',
  'Content-Length',
  'Content-Encoding',
  'Transfer-Encoding',
  'Host',
  'Connection',
  'Te',
  'Upgrade',
  'Trailer',
  'Keep-Alive',
]);

function checkHeader(name: string, value: string): string {
  if (!TOKEN.test(name)) throw DomainError.invalidField('headers', `'${name.slice(0, 64)}' is not a valid header name`);
  const canonical = canonicalHeaderName(name);
  if (RESERVED.has(canonical)) throw DomainError.invalidField('headers', `'${canonical}' is set by the exporter and cannot be configured`);
  if (!FIELD_VALUE.test(value)) throw DomainError.invalidField(`headers.${canonical}`, 'value must not contain control characters');
  return canonical;
}

function checkTotal(headers: Record<string, string>): Record<string, string> {
  const bytes = Object.entries(headers).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (bytes > MAX_HEADER_BYTES) throw DomainError.invalidField('headers', `names and values must total at most ${MAX_HEADER_BYTES} bytes`);
  return headers;
}

/** A create body's headers: two spellings of one name are refused. */
export function checkHeaders(input: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input ?? {})) {
    const canonical = checkHeader(name, value);
    if (canonical in out) throw DomainError.invalidField('headers', `'${canonical}' is given more than once`);
    out[canonical] = value;
  }
  return checkTotal(out);
}

/** A PATCH's headers over the stored ones: string = add/replace, null = delete, omitted = keep; names match case-insensitively. */
export function patchHeaders(current: Record<string, string>, patch: Record<string, string | null>): Record<string, string> {
  const out = { ...current };
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(patch)) {
    const canonical = value === null ? canonicalHeaderName(name) : checkHeader(name, value);
    if (value === null && !TOKEN.test(name)) throw DomainError.invalidField('headers', `'${name.slice(0, 64)}' is not a valid header name`);
    if (seen.has(canonical)) throw DomainError.invalidField('headers', `'${canonical}' is given more than once`);
    seen.add(canonical);
    for (const k of Object.keys(out)) if (k.toLowerCase() === canonical.toLowerCase()) delete out[k];
    if (value !== null) out[canonical] = value;
  }
  return checkTotal(out);
}

/** What a read shows of the headers: every name, no value. */
export function hiddenHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((k) => [k, '']));
}
