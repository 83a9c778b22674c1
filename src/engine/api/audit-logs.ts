/**
 * `GET /audit-logs` (search, page-token pagination, newest first, window ≤ 30 days) and
 * `GET /audit-logs/export/chunk` (bulk export in JSON Lines chunks with a cursor and a SHA-256
 * of each body, as the official client's `auditLogs.download()` verifies). Only the caller's
 * organization is ever read.
 */
import type { Feature } from '../feature.js';
import { parseAuditFilter, MAX_WINDOW_DAYS } from '../domain/audit/audit-filter.js';
import { decodeCursor, encodeCursor } from '../domain/audit/audit-cursor.js';
import { entryOf, findAuditRows, positionOf } from '../domain/audit/audit-query.js';
import { buildExportChunk } from '../domain/audit/audit-export.js';
import { route } from '../route.js';

export const auditLogsFeature: Feature<'auditWriter'> = {
  name: 'audit-logs',
  register(app, ctx, { auditWriter }) {
    // Rows are batched (audit-writer.ts), so a read first writes what is queued: a request's row
    // is queued when its response ends, and a search that starts after that response sees it.
    // Only reads of the log pay for this; recording stays off every other request's path.
    const flushed = () => auditWriter.flush();
    route(app, 'GET /audit-logs', async (req, reply) => {
      const q = req.query;
      const { limit = 100 } = q; // the schema's default: always set by validation
      const filter = parseAuditFilter(req.auth.orgId, q, ctx.clock.now(), { maxWindowDays: MAX_WINDOW_DAYS });
      const after = q.page_token ? decodeCursor(q.page_token, 'page_token') : undefined;
      await flushed();
      const rows = await findAuditRows(ctx.db, filter, after, limit);
      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      reply.header('X-Has-More', hasMore ? 'true' : 'false');
      if (hasMore) reply.header('X-Next-Page-Token', encodeCursor(positionOf(page[page.length - 1])));
      return page.map(entryOf);
    });
    route(app, 'GET /audit-logs/export/chunk', async (req, reply) => {
      const q = req.query;
      const { limit = 10_000, format = 'jsonl.gz' } = q; // the schema's defaults: always set by validation
      // Export is the bulk path, so its window is not capped like interactive search.
      const filter = parseAuditFilter(req.auth.orgId, q, ctx.clock.now(), {});
      const after = q.cursor ? decodeCursor(q.cursor, 'cursor') : undefined;
      await flushed();
      const rows = await findAuditRows(ctx.db, filter, after, limit);
      const hasMore = rows.length > limit;
      const chunkRows = hasMore ? rows.slice(0, limit) : rows;
      const chunk = await buildExportChunk(chunkRows, format);
      reply.header('X-Has-More', hasMore ? 'true' : 'false');
      reply.header('X-Row-Count', String(chunkRows.length));
      if (hasMore) reply.header('X-Next-Cursor', encodeCursor(positionOf(chunkRows[chunkRows.length - 1])));
      reply.header('X-Content-Sha256', chunk.sha256);
      const ext = format === 'jsonl' ? 'jsonl' : 'jsonl.gz';
      reply.header('Content-Disposition', `attachment; filename="audit-logs.${ext}"`);
      return reply.type('application/octet-stream').send(chunk.body);
    });
  },
};
