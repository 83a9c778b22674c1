/**
 * One audit-log row as the recorder produces it, and the small pure rules that derive its
 * fields from a request: the service (first path segment), the domain (Host without port)
 * and length caps so one hostile request cannot bloat the table.
 */
import type { AuditLogTable } from '../../store/schema.js';

export type AuditRecord = Omit<AuditLogTable, 'id'>;

export type AuditAuthStrategy = 'api_key' | 'session_jwt' | 'invocation_key' | 'none';

const MAX_PATH = 2048;
const MAX_TEXT = 512;

/** `/browsers/abc/cdp?x=1` → `browsers`; `/` → `` (the resource family a request belongs to). */
export function serviceOf(url: string): string {
  let end = url.length;
  for (let i = 1; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */) {
      end = i;
      break;
    }
  }
  return clip(url.slice(1, end), 64);
}

let lastHost = '';
let lastDomain = '';

/** `Host: api.example.com:8420` → `api.example.com`; `[::1]:80` → `[::1]`. */
export function domainOf(host: string | undefined): string {
  if (!host) return '';
  // Nearly every request carries the same Host as the one before: remember the last answer.
  if (host === lastHost) return lastDomain;
  lastDomain = parseDomain(host);
  lastHost = host;
  return lastDomain;
}

function parseDomain(host: string): string {
  const h = host.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(h);
  return clip(m ? m[1] : h, 255);
}

export function clipPath(path: string): string {
  return clip(path, MAX_PATH);
}

export function clipText(s: string | undefined): string {
  return s ? clip(s, MAX_TEXT) : '';
}

function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}
