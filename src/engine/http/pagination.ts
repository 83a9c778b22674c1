/**
 * Offset pagination as the official client reads it: a bare JSON array plus `X-Has-More` and
 * `X-Next-Offset` (the absolute start of the next page; 0 on the last page).
 */
import type { FastifyReply } from 'fastify';

export { OffsetQuery } from '../../shared/wire/pagination.js';

export interface Page {
  offset: number;
  limit: number;
}

export function pageOf(query: { offset?: number; limit?: number }, defaultLimit = 20): Page {
  return { offset: query.offset ?? 0, limit: query.limit ?? defaultLimit };
}

/** `rows` must have been fetched with `limit + 1` so that one extra row tells whether more exist. */
export function sendPage<T>(reply: FastifyReply, rows: T[], page: Page): T[] {
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  reply.header('X-Has-More', hasMore ? 'true' : 'false');
  reply.header('X-Next-Offset', String(hasMore ? page.offset + items.length : 0));
  return items;
}

/** For in-memory collections: slice one page and set the headers. */
export function sendSlice<T>(reply: FastifyReply, all: T[], page: Page): T[] {
  return sendPage(reply, all.slice(page.offset, page.offset + page.limit + 1), page);
}
