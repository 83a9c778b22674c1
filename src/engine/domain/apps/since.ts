/**
 * `?since=` of the deployment and invocation endpoints: an RFC 3339 timestamp or a Go-style
 * duration counted back from now (`5m`, `1h30m`, `90s`, `250ms`). Anything else is a 400.
 */
import { ApiError } from '../../http/api-error.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/g;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant `since` names, or undefined when it is absent/empty. */
export function parseSince(since: string | undefined, now: Date, field = 'since'): Date | undefined {
  if (since === undefined || since.trim() === '') return undefined;
  const s = since.trim();
  if (DURATION.test(s)) {
    let ms = 0;
    for (const m of s.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2]];
    return new Date(now.getTime() - ms);
  }
  if (RFC3339.test(s)) {
    // Date.parse keeps milliseconds; finer digits (RFC 3339 nanoseconds) are cut, not rejected.
    const t = Date.parse(s.replace(/(\.\d{3})\d+/, '$1'));
    if (Number.isFinite(t)) return new Date(t);
  }
  throw ApiError.invalidField(field, 'must be an RFC 3339 timestamp (2025-01-02T15:04:05Z) or a duration like 5m, 1h30m, 90s');
}
