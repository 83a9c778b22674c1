/**
 * Turns the query of `GET /audit-logs` and `GET /audit-logs/export/chunk` into a filter:
 * the time window (start inclusive, end exclusive, end defaults to now), exact filters,
 * excluded methods and the free-text search with its extra user ids. Array parameters arrive
 * comma-joined (the official client) or repeated; both are accepted.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { queryList } from '../../../shared/query-list.js';
import type { AuditFilterQuery } from '../../../shared/wire/audit.js';

export type { AuditFilterQuery };

export interface AuditFilter {
  orgId: string;
  start: string;
  end: string;
  authStrategy?: string;
  service?: string;
  method?: string;
  excludeMethods: string[];
  search?: string;
  searchUserIds: string[];
}

export const MAX_WINDOW_DAYS = 30;
const MAX_EXCLUDED_METHODS = 10;
const MAX_SEARCH_USER_IDS = 100;

export function parseAuditFilter(orgId: string, q: AuditFilterQuery, now: Date, opts: { maxWindowDays?: number }): AuditFilter {
  const start = instant(q.start, 'start');
  const end = q.end === undefined ? now : instant(q.end, 'end');
  if (end.getTime() <= start.getTime()) throw DomainError.invalidField('end', 'must be after start');
  if (opts.maxWindowDays !== undefined && end.getTime() - start.getTime() > opts.maxWindowDays * 86_400_000) {
    throw DomainError.invalidField('end', `the search window (end - start) must not exceed ${opts.maxWindowDays} days`);
  }
  const excludeMethods = queryList(q.exclude_method).map((m) => m.toUpperCase());
  if (excludeMethods.length > MAX_EXCLUDED_METHODS) throw DomainError.invalidField('exclude_method', `at most ${MAX_EXCLUDED_METHODS} items`);
  const searchUserIds = queryList(q.search_user_id);
  if (searchUserIds.length > MAX_SEARCH_USER_IDS) throw DomainError.invalidField('search_user_id', `at most ${MAX_SEARCH_USER_IDS} items`);
  return {
    orgId,
    start: start.toISOString(),
    end: end.toISOString(),
    authStrategy: nonEmpty(q.auth_strategy),
    service: nonEmpty(q.service),
    method: nonEmpty(q.method)?.toUpperCase(),
    excludeMethods,
    search: nonEmpty(q.search),
    searchUserIds,
  };
}

function instant(value: string, field: string): Date {
  const d = new Date(Date.parse(value));
  // Stored timestamps are ISO text compared as strings, so only years 0001–9999 compare correctly.
  const year = d.getUTCFullYear();
  if (Number.isNaN(d.getTime()) || year < 1 || year > 9999) throw DomainError.invalidField(field, 'must be an ISO 8601 date-time');
  return d;
}

function nonEmpty(s: string | undefined): string | undefined {
  const t = s?.trim();
  return t ? t : undefined;
}
