/**
 * Two engine nodes on ONE PostgreSQL database for the multi-node tests: node A is a normal
 * test engine (fresh database), node B joins A's database with its own data dir (so its own
 * node id) and uses A's admin key — the organization and keys live in the shared database.
 * Without BROWSERDECK_TEST_DATABASE_URL these tests cannot run (multi-node is PostgreSQL-only):
 * `PG_SKIP_REASON` names why in the skipped suite's title.
 */
import net from 'node:net';
import type { EngineOptions } from '../../../src/engine/config.js';
import type { AuditWriter } from '../../../src/engine/domain/audit/audit-writer.js';
import type { NodesService } from '../../../src/engine/domain/nodes/nodes-service.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

export const PG_URL = process.env.BROWSERDECK_TEST_DATABASE_URL;
export const PG_SKIP_REASON = PG_URL
  ? ''
  : ' [SKIPPED: multi-node needs PostgreSQL; set BROWSERDECK_TEST_DATABASE_URL (npm test runs this in its PostgreSQL pass)]';
// The default reporter shows a skipped file only as "skipped": say why where it is seen.
if (!PG_URL) console.warn(`multi-node tests${PG_SKIP_REASON}`);

/** A second node on `a`'s database. Stop it before `a` (a's stop drops the database). */
export function joinNode(a: TestEngine, opts: EngineOptions = {}): Promise<TestEngine> {
  return startTestEngine({ ...opts, databaseUrl: a.engine.config.databaseUrl }, undefined, { adminKey: a.adminKey });
}

export function nodesOf(t: TestEngine): NodesService {
  return t.engine.services.nodes as NodesService;
}

export function nodeIdOf(t: TestEngine): string {
  return nodesOf(t).registry.nodeId;
}

/** Flushes both nodes' audit writers (they share the table). */
export async function flushAudits(...nodes: TestEngine[]): Promise<void> {
  for (const n of nodes) await (n.engine.services.auditWriter as AuditWriter).flush();
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** `url` with its origin replaced by node `t`'s (what a load balancer in front of both would do). */
export function via(t: TestEngine, url: string): string {
  const u = new URL(url);
  const n = new URL(t.url);
  u.protocol = u.protocol.startsWith('ws') ? 'ws:' : n.protocol;
  u.host = n.host;
  return u.toString();
}

export { startTestEngine, type TestEngine };
