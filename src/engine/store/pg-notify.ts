/**
 * PostgreSQL LISTEN/NOTIFY for engines sharing one database: `pgNotify` sends a payload on a
 * channel through the engine's own pool; `pgListen` holds one dedicated connection that
 * LISTENs and hands every payload to `onPayload`. A dropped connection is re-opened after a
 * second (notifications sent meanwhile are lost, as LISTEN/NOTIFY never replays); `close()`
 * ends it for good.
 */
import { sql, type QueryExecutorProvider } from 'kysely';
import pg from 'pg';

export async function pgNotify(db: QueryExecutorProvider, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

export interface PgListener {
  /** Resolves once LISTEN is in effect (first connection). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function pgListen(databaseUrl: string, channel: string, onPayload: (payload: string) => void, onError: (err: Error) => void): PgListener {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (m) => {
      if (m.channel === channel && m.payload !== undefined) onPayload(m.payload);
    });
    c.on('error', (err) => {
      onError(err);
      void c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connect().catch(onError), 1000);
    });
    await c.connect();
    if (closed) return void (await c.end());
    await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
  };
  const ready = connect();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      await ready.catch(() => {});
      await client?.end().catch(() => {});
    },
  };
}
