/**
 * How a batch of audit rows reaches the database: one INSERT taking the whole batch as a single
 * JSON parameter (`INSERT … SELECT` over SQLite's `json_each` / PostgreSQL's
 * `json_to_recordset`), so the SQL text is short and constant whatever the batch size.
 * On SQLite the statement runs in a worker thread with its own connection (see
 * audit-sqlite-worker.ts); on PostgreSQL, or where no worker can be used, through Kysely.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { DialectName } from '../../store/database.js';
import type { AuditRecord } from './audit-record.js';

export type BatchInsert = (rows: AuditRecord[]) => Promise<void>;

// Column order is also the tuple order of sqliteBatchJson below.
const TEXT_COLUMNS = [
  'org_id',
  'timestamp',
  'auth_strategy',
  'user_id',
  'email',
  'method',
  'path',
  'route',
  'domain',
  'service',
  'client_ip',
  'user_agent',
] as const;
const INT_COLUMNS = ['status', 'duration_ms'] as const;
const COLUMNS = [...TEXT_COLUMNS, ...INT_COLUMNS];
const columnList = COLUMNS.map((c) => `"${c}"`).join(', ');

// SQLite reads each row as a positional array (`value ->> N`): encoding arrays costs about
// half of encoding objects with their keys repeated, and this runs on the main thread.
const sqlitePrefix = `insert into audit_logs (${columnList}) select ${COLUMNS.map((_c, i) => `value ->> ${i}`).join(', ')} from json_each(`;

/** The SQLite statement; its one parameter is `sqliteBatchJson(rows)`. */
export const SQLITE_BATCH_INSERT = `${sqlitePrefix}?)`;

/** The rows as the JSON array of positional arrays that SQLITE_BATCH_INSERT reads (order = COLUMNS). */
export function sqliteBatchJson(rows: AuditRecord[]): string {
  const tuples = new Array<unknown[]>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    tuples[i] = [
      r.org_id,
      r.timestamp,
      r.auth_strategy,
      r.user_id,
      r.email,
      r.method,
      r.path,
      r.route,
      r.domain,
      r.service,
      r.client_ip,
      r.user_agent,
      r.status,
      r.duration_ms,
    ];
  }
  return JSON.stringify(tuples);
}

export function kyselyBatchInsert(db: Kysely<Database>, dialect: DialectName): BatchInsert {
  if (dialect === 'postgres') {
    const defs = sql.raw([...TEXT_COLUMNS.map((c) => `"${c}" text`), ...INT_COLUMNS.map((c) => `"${c}" integer`)].join(', '));
    const cols = sql.raw(columnList);
    return async (rows) => {
      await sql`insert into audit_logs (${cols}) select ${cols} from json_to_recordset(${JSON.stringify(rows)}::json) as r(${defs})`.execute(db);
    };
  }
  const prefix = sql.raw(sqlitePrefix);
  return async (rows) => {
    await sql`${prefix}${sqliteBatchJson(rows)})`.execute(db);
  };
}
