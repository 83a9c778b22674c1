/**
 * Kysely's SQLite dialect with every transaction opened as `BEGIN IMMEDIATE`.
 *
 * The engine is not SQLite's only writer: the audit worker inserts through its own connection
 * to the same WAL file. Kysely's plain `BEGIN` is deferred — a transaction that reads first
 * (limits, name checks) and writes afterwards has to upgrade its read snapshot, and if the
 * audit worker committed in between, SQLite refuses the upgrade at once with
 * SQLITE_BUSY_SNAPSHOT (the busy timeout does not apply). That surfaced as a rare 500 from
 * `POST /browsers` right after another request's audit batch. `BEGIN IMMEDIATE` takes the write
 * lock up front, so the two writers wait for each other under `busy_timeout` instead.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}
