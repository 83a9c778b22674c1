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

const TEXT_COLUMNS = ['org_id', 'timestamp', 'auth_strategy', 'user_id', 'email', 'method', 'path', 'route', 'domain', 'service', 'client_ip', 'user_agent'] as const;
const INT_COLUMNS = ['status', 'duration_ms'] as const;
const COLUMNS = [...TEXT_COLUMNS, ...INT_COLUMNS];
const columnList = COLUMNS.map((c) => `"${c}"`).join(', ');

const sqlitePrefix = `insert into audit_logs (${columnList}) select ${COLUMNS.map((c) => `value ->> '$.${c}'`).join(', ')} from json_each(`;

/** The SQLite statement; its one parameter is the JSON array of row objects. */
export const SQLITE_BATCH_INSERT = `${sqlitePrefix}?)`;

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
    await sql`${prefix}${JSON.stringify(rows)})`.execute(db);
  };
}
