/**
 * Carries change-feed events between engine nodes that share one PostgreSQL database: each
 * change made here is NOTIFYed with this node's tag, and every node LISTENs and delivers the
 * others' changes to its own feed followers. Without PostgreSQL there is one node and nothing
 * to carry. A notification lost while a listener reconnects is not replayed (consoles refetch
 * when their own stream reconnects, not when a node's listener does).
 */
import { randomUUID } from 'node:crypto';
import { pgListen, pgNotify } from '../store/pg-notify.js';
import type { OrgChange, ResourceChanges } from './resource-changes.js';

const CHANNEL = 'browserdeck_changes';

export async function relayChangesAcrossNodes(opts: {
  db: Parameters<typeof pgNotify>[0];
  databaseUrl: string;
  bus: ResourceChanges;
  onError: (err: Error) => void;
}): Promise<{ close(): Promise<void> }> {
  const origin = randomUUID();
  const listener = pgListen(
    opts.databaseUrl,
    CHANNEL,
    (payload) => {
      try {
        const m = JSON.parse(payload) as { origin: string; change: OrgChange };
        if (m.origin !== origin) opts.bus.deliver(m.change);
      } catch (err) {
        opts.onError(err as Error);
      }
    },
    opts.onError,
  );
  await listener.ready;
  const off = opts.bus.onLocal((change) => void pgNotify(opts.db, CHANNEL, JSON.stringify({ origin, change })).catch(opts.onError));
  return {
    async close() {
      off();
      await listener.close();
    },
  };
}
