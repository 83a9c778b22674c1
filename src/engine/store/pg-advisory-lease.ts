/**
 * A PostgreSQL session-level advisory lock held on a dedicated connection for as long as this
 * process wants it: the server releases it the moment that connection's backend ends — the
 * process was killed (its kernel closes the socket), or TCP keepalives found its host gone — so
 * other processes can read from `pg_locks` whether the holder is still connected, without
 * waiting for a timer to run out. A dropped connection is opened again and the lock taken
 * again every `retryMs` (a lock another connection holds is retried the same way).
 *
 * Why `pg_locks` and not a peer's own `pg_try_advisory_lock`: taking someone else's lock to
 * test it, even for an instant, could make its owner's own re-take fail in that instant.
 */
import { sql, type QueryExecutorProvider } from 'kysely';
import pg from 'pg';

/** The two int4 halves of an advisory lock key (`pg_try_advisory_lock(int4, int4)`). */
export type AdvisoryKey = readonly [classId: number, objId: number];

export interface AdvisoryLease {
  /** When (Date.now()) the lock was taken on the current connection; undefined while it is not held. */
  heldSince(): number | undefined;
  /** Settles after the first attempt: whether the lock was taken. */
  ready: Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Server-side keepalives on the holding connection (the server's own defaults are the
 * kernel's, hours): a holder whose host vanished without closing the socket is dropped, and
 * its lock freed, about 4 s later. An idle-session timeout would free the lock for nothing.
 * Each is tried alone: an older server lacks some, and a Unix-socket connection ignores them.
 */
const SESSION_SETTINGS = ['SET tcp_keepalives_idle = 2', 'SET tcp_keepalives_interval = 1', 'SET tcp_keepalives_count = 2', 'SET idle_session_timeout = 0'];

export function holdAdvisoryLease(
  databaseUrl: string,
  key: AdvisoryKey,
  opts: {
    retryMs: number;
    /** Told on each change: taken (true) or lost (false). */
    onChange: (held: boolean) => void;
    /** Told once per distinct failure (not on every retry). */
    onError: (err: Error) => void;
    /** Shown in `pg_stat_activity.application_name`. */
    applicationName: string;
  },
): AdvisoryLease {
  let closed = false;
  let client: pg.Client | undefined;
  let since: number | undefined;
  let retry: NodeJS.Timeout | undefined;
  let lastError = '';

  const report = (err: Error) => {
    if (err.message === lastError) return;
    lastError = err.message;
    opts.onError(err);
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    if (since !== undefined) {
      since = undefined;
      opts.onChange(false);
    }
    void c.end().catch(() => {});
    if (closed) return;
    retry = setTimeout(() => void attempt(), opts.retryMs);
    retry.unref();
  };
  const attempt = async (): Promise<boolean> => {
    // The client side keeps the socket alive too: this process learns of a vanished server.
    const c = new pg.Client({ connectionString: databaseUrl, keepAlive: true, keepAliveInitialDelayMillis: 1000, application_name: opts.applicationName });
    client = c;
    c.on('error', (err) => {
      report(err);
      lost(c);
    });
    c.on('end', () => lost(c));
    try {
      await c.connect();
      for (const s of SESSION_SETTINGS) await c.query(s).catch(() => {});
      const r = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1::int4, $2::int4) as ok', [key[0], key[1]]);
      if (closed || client !== c) {
        await c.end().catch(() => {});
        return false;
      }
      if (!r.rows[0]?.ok) throw new Error(`advisory lock (${key[0]}, ${key[1]}) is held by another connection`);
      since = Date.now();
      lastError = '';
      opts.onChange(true);
      return true;
    } catch (err) {
      report(err as Error);
      lost(c);
      return false;
    }
  };
  const ready = attempt();
  return {
    ready,
    heldSince: () => since,
    async close() {
      closed = true;
      clearTimeout(retry);
      await ready.catch(() => {});
      const c = client;
      client = undefined;
      since = undefined;
      await c?.end().catch(() => {});
    },
  };
}

/** The object ids (unsigned, as `pg_locks` shows them) of the granted advisory locks of `classId` in this database. */
export async function grantedAdvisoryLocks(db: QueryExecutorProvider, classId: number): Promise<Set<number>> {
  const r = await sql<{ objid: number | string }>`
    select objid from pg_locks
    where locktype = 'advisory' and granted and objsubid = 2 and classid = ${classId}::oid
      and database = (select oid from pg_database where datname = current_database())`.execute(db);
  return new Set(r.rows.map((row) => Number(row.objid)));
}
