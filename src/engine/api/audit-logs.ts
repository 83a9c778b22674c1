/**
 * `GET /audit-logs` (search, page-token pagination, newest first, window ≤ 30 days) and
 * `GET /audit-logs/export/chunk` (bulk export in JSON Lines chunks with a cursor and a SHA-256
 * of each body, as the official client's `auditLogs.download()` verifies). Only the caller's
 * organization is ever read.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { parseAuditFilter, MAX_WINDOW_DAYS, type AuditFilterQuery } from '../domain/audit/audit-filter.js';
import { decodeCursor, encodeCursor } from '../domain/audit/audit-cursor.js';
import { entryOf, findAuditRows, positionOf } from '../domain/audit/audit-query.js';
import { AuditLogEntrySchema } from '../../shared/wire/audit.js';
import { buildExportChunk, type ExportFormat } from '../domain/audit/audit-export.js';
import type { AuditWriter } from '../domain/audit/audit-writer.js';

const DEFAULT_CHUNK_ROWS = 10_000;
const MAX_CHUNK_ROWS = 50_000;

const Str = (max: number, extra: object = {}) => Type.String({ maxLength: max, ...extra });
const StrList = (max: number) => Type.Array(Str(max), { maxItems: 200, description: 'comma-joined or repeated' });

const FilterQuery = {
  start: Str(64, { format: 'date-time', description: 'lower bound (inclusive)' }),
  end: Type.Optional(Str(64, { format: 'date-time', description: 'upper bound (exclusive); defaults to now' })),
  auth_strategy: Type.Optional(Str(64)),
  service: Type.Optional(Str(128)),
  method: Type.Optional(Str(32)),
  exclude_method: Type.Optional(StrList(400)),
  search: Type.Optional(Str(1024)),
  search_user_id: Type.Optional(StrList(8192)),
};

const ListQuery = Type.Object({
  ...FilterQuery,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page_token: Type.Optional(Str(200)),
});

const ChunkQuery = Type.Object({
  ...FilterQuery,
  cursor: Type.Optional(Str(200)),
  format: Type.Optional(Type.Union([Type.Literal('jsonl'), Type.Literal('jsonl.gz')], { default: 'jsonl.gz' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CHUNK_ROWS, default: DEFAULT_CHUNK_ROWS })),
});

const binary: TSchema = Type.String({ contentEncoding: 'binary' });

export const auditLogsFeature: Feature = {
  name: 'audit-logs',
  register(app: FastifyInstance, ctx) {
    const tags = ['audit-logs'];
    // Rows are batched (audit-writer.ts), so a read first writes what is queued: a request's row
    // is queued when its response ends, and a search that starts after that response sees it.
    // Only reads of the log pay for this; recording stays off every other request's path.
    const flushed = () => (ctx.services.auditWriter as AuditWriter | undefined)?.flush();
    app.get(
      '/audit-logs',
      { schema: { tags, querystring: ListQuery, response: { 200: Type.Array(AuditLogEntrySchema) } } },
      async (req, reply) => {
        const q = req.query as AuditFilterQuery & { limit: number; page_token?: string };
        const filter = parseAuditFilter(req.auth.orgId, q, ctx.clock.now(), { maxWindowDays: MAX_WINDOW_DAYS });
        const after = q.page_token ? decodeCursor(q.page_token, 'page_token') : undefined;
        await flushed();
        const rows = await findAuditRows(ctx.db, filter, after, q.limit);
        const hasMore = rows.length > q.limit;
        const page = hasMore ? rows.slice(0, q.limit) : rows;
        reply.header('X-Has-More', hasMore ? 'true' : 'false');
        if (hasMore) reply.header('X-Next-Page-Token', encodeCursor(positionOf(page[page.length - 1])));
        return page.map(entryOf);
      },
    );
    app.get(
      '/audit-logs/export/chunk',
      { schema: { tags, querystring: ChunkQuery, response: { 200: binary } } },
      async (req, reply) => {
        const q = req.query as AuditFilterQuery & { limit: number; cursor?: string; format: ExportFormat };
        // Export is the bulk path, so its window is not capped like interactive search.
        const filter = parseAuditFilter(req.auth.orgId, q, ctx.clock.now(), {});
        const after = q.cursor ? decodeCursor(q.cursor, 'cursor') : undefined;
        await flushed();
        const rows = await findAuditRows(ctx.db, filter, after, q.limit);
        const hasMore = rows.length > q.limit;
        const chunkRows = hasMore ? rows.slice(0, q.limit) : rows;
        const chunk = await buildExportChunk(chunkRows, q.format);
        reply.header('X-Has-More', hasMore ? 'true' : 'false');
        reply.header('X-Row-Count', String(chunkRows.length));
        if (hasMore) reply.header('X-Next-Cursor', encodeCursor(positionOf(chunkRows[chunkRows.length - 1])));
        reply.header('X-Content-Sha256', chunk.sha256);
        const ext = q.format === 'jsonl' ? 'jsonl' : 'jsonl.gz';
        reply.header('Content-Disposition', `attachment; filename="audit-logs.${ext}"`);
        return reply.type('application/octet-stream').send(chunk.body);
      },
    );
  },
};
