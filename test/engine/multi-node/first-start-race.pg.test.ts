/**
 * Nodes starting at the same moment on one empty PostgreSQL database (a cluster's replicas on
 * their first deploy) must make one organization, one default project and one admin key — not
 * one each, which would split them into two tenants that cannot see each other's keys or
 * sessions. Exactly one node makes the key (and writes it to its data dir); every node serves it.
 *
 * Two engines started together hit the race only now and then (their starts rarely line up to
 * the millisecond), so the first start's transaction is also raced directly: two stores, two
 * connection pools, the two bootstraps issued together, several rounds.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, PG_URL, startTestEngine, type TestEngine } from './two-nodes.js';
import { freshPostgresDatabase } from '../../helpers/engine.js';
import { openStore, type Store } from '../../../src/engine/store/database.js';
import { bootstrapOrg } from '../../../src/engine/domain/org/bootstrap.js';
import { ApiKeyAuthority } from '../../../src/engine/domain/org/api-keys.js';
import { systemClock } from '../../../src/shared/clock.js';

const DIRECT_ROUNDS = 10;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function tempDirs(n: number): Promise<string[]> {
  const dirs = await Promise.all(Array.from({ length: n }, () => fs.mkdtemp(path.join(os.tmpdir(), 'bd-race-'))));
  cleanup.push(async () => {
    for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  });
  return dirs;
}

/** The admin key file, if the node with this data dir made the key. */
async function keyIn(dir: string): Promise<string | null> {
  return fs.readFile(path.join(dir, 'admin-api-key'), 'utf8').then(
    (k) => k.trim(),
    () => null,
  );
}

async function rowCounts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['orgs', 'projects', 'api_keys'] as const) {
    const r = await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  return out;
}

describe.skipIf(!PG_URL)(`nodes starting together on an empty database${PG_SKIP_REASON}`, () => {
  it('two engines make one organization and one admin key, and both serve it', async () => {
    const db = await freshPostgresDatabase(PG_URL!);
    cleanup.push(db.drop);
    const dirs = await tempDirs(2);
    // adminKey '': the helper must not read a key file; which node wrote one is the question.
    const started = await Promise.allSettled(dirs.map((dataDir) => startTestEngine({ dataDir, databaseUrl: db.url }, undefined, { adminKey: '' })));
    const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    for (const n of nodes) cleanup.push(() => n.stop());
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [a, b] = nodes as [TestEngine, TestEngine];

    const keys = (await Promise.all(dirs.map(keyIn))).filter((k): k is string => k !== null);
    expect(keys).toHaveLength(1);
    expect(await rowCounts(a.engine.context.store)).toEqual({ orgs: 1, projects: 1, api_keys: 1 });
    for (const n of [a, b]) {
      const client = new Kernel({ apiKey: keys[0], baseURL: n.url, maxRetries: 0 });
      const listed: string[] = [];
      for await (const s of client.browsers.list()) listed.push(s.session_id);
      expect(listed).toEqual([]);
    }
  }, 120_000);

  it(`two first-start transactions issued together make one of each (${DIRECT_ROUNDS} rounds)`, async () => {
    const db = await freshPostgresDatabase(PG_URL!);
    cleanup.push(db.drop);
    const dirs = await tempDirs(2);
    const stores: Store[] = [];
    for (const dataDir of dirs) stores.push(await openStore({ dataDir, databaseUrl: db.url }));
    cleanup.push(async () => {
      for (const s of stores) await s.close();
    });
    for (let round = 1; round <= DIRECT_ROUNDS; round++) {
      const results = await Promise.all(
        stores.map((s, i) =>
          bootstrapOrg({ db: s.db, dialect: s.dialect, clock: systemClock, dataDir: dirs[i], apiKeys: new ApiKeyAuthority(s.db, systemClock), log: () => {} }),
        ),
      );
      expect({ round, counts: await rowCounts(stores[0]) }).toEqual({ round, counts: { orgs: 1, projects: 1, api_keys: 1 } });
      expect(results.filter((r) => r.adminKey)).toHaveLength(1);
      expect(results[0].orgId).toBe(results[1].orgId);
      // Back to an empty database (and no key files) for the next round.
      await stores[0].db.deleteFrom('api_keys').execute();
      await stores[0].db.deleteFrom('projects').execute();
      await stores[0].db.deleteFrom('orgs').execute();
      for (const d of dirs) await fs.rm(path.join(d, 'admin-api-key'), { force: true });
    }
  }, 120_000);
});
