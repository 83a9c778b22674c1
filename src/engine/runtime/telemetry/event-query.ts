/**
 * `GET /telemetry/events` semantics over a session's retained events. `offset` is a cursor in
 * sequence space (what `X-Next-Offset` hands back): asc reads events with seq ≥ offset, desc
 * reads events with seq < offset, newest first. Without an offset the window is `since`
 * (RFC 3339 or a duration such as `5m`, default 5m) to `until` (exclusive). Category and `type`
 * filters (ANDed) apply before paging, so a page is never empty while `X-Has-More` is true (Kernel
 * allows that; a filter here costs the engine a scan of the retained buffer, nothing more).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { parseInstantOrDuration } from '../../../shared/instant-or-duration.js';
import { queryList } from '../../../shared/query-list.js';
import { EVENT_CATEGORIES, type EventCategory, type TelemetryEnvelope } from './telemetry-event.js';

export interface EventQuery {
  offset?: number;
  limit: number;
  category?: string[];
  type?: string[];
  since?: string;
  until?: string;
  order?: 'asc' | 'desc';
}

/** RFC 3339 timestamp or a Go-style duration ago (`90s`, `5m`, `1h30m`) → epoch ms. */
export function parseInstant(field: string, v: string, nowMs: number): number {
  const t = parseInstantOrDuration(v, nowMs);
  if (t !== undefined) return t;
  throw DomainError.invalidField(field, 'must be an RFC 3339 timestamp or a duration such as 5m');
}

export function parseCategories(values: string[] | undefined): Set<EventCategory> | undefined {
  const out = new Set<EventCategory>();
  for (const c of queryList(values)) {
    if (!(EVENT_CATEGORIES as readonly string[]).includes(c))
      throw DomainError.invalidField('category', `unknown category '${c.slice(0, 40)}'; one of ${EVENT_CATEGORIES.join(', ')}`);
    out.add(c as EventCategory);
  }
  return out.size ? out : undefined;
}

/**
 * Event types to keep. Any well-formed name is accepted (a newer client may ask for a type this
 * engine never emits: it simply matches nothing); a malformed one is a 400.
 */
export function parseTypes(values: string[] | undefined): Set<string> | undefined {
  const out = new Set<string>();
  for (const t of queryList(values)) {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(t))
      throw DomainError.invalidField('type', `'${t.slice(0, 40)}' is not an event type (lower-case letters, digits and _)`);
    out.add(t);
  }
  return out.size ? out : undefined;
}

/** One page plus the cursor for the next (0 = last page). */
export function queryEvents(all: TelemetryEnvelope[], q: EventQuery, nowMs: number): { items: TelemetryEnvelope[]; hasMore: boolean; nextOffset: number } {
  const order = q.order ?? 'asc';
  if (order === 'desc' && q.since !== undefined)
    throw DomainError.badRequest('order=desc cannot be combined with since', [{ code: 'invalid_field', message: 'since: not allowed with order=desc' }]);
  const cats = parseCategories(q.category);
  const types = parseTypes(q.type);
  const untilUs = q.until !== undefined ? parseInstant('until', q.until, nowMs) * 1000 : Infinity;
  const sinceUs = q.offset === undefined && order === 'asc' ? parseInstant('since', q.since ?? '5m', nowMs) * 1000 : -Infinity;
  const match = (e: TelemetryEnvelope) =>
    e.event.ts >= sinceUs && e.event.ts < untilUs && (!cats || cats.has(e.event.category)) && (!types || types.has(e.event.type));
  let picked: TelemetryEnvelope[];
  if (order === 'asc') {
    const from = q.offset ?? 0;
    picked = [];
    for (const e of all) if (e.seq >= from && match(e) && picked.push(e) > q.limit) break;
  } else {
    const before = q.offset && q.offset > 0 ? q.offset : Infinity;
    picked = [];
    for (let i = all.length - 1; i >= 0; i--) if (all[i].seq < before && match(all[i]) && picked.push(all[i]) > q.limit) break;
  }
  const hasMore = picked.length > q.limit;
  const items = picked.slice(0, q.limit);
  const last = items.at(-1);
  const nextOffset = hasMore && last ? (order === 'asc' ? last.seq + 1 : last.seq) : 0;
  return { items, hasMore, nextOffset };
}
