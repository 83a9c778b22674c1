/** Query fragments that read the same in SQLite and PostgreSQL. */
import { sql, type RawBuilder } from 'kysely';

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Case-sensitive substring match on a column already stored in a normalized (lower-case) form. */
export function contains(column: string, needle: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${'%' + escapeLike(needle) + '%'} escape '\\'`;
}

/** Case-insensitive substring match on any text column. */
export function containsInsensitive(column: string, needle: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${'%' + escapeLike(needle.toLowerCase()) + '%'} escape '\\'`;
}

/** Prefix match (case-sensitive), with LIKE wildcards in the needle taken literally. */
export function startsWith(column: string, needle: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${escapeLike(needle) + '%'} escape '\\'`;
}

/** True when a write failed on a unique constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
