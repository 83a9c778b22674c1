/**
 * Starts a real engine for a test file: its own temp data dir, a free port, SQLite by default
 * or a fresh PostgreSQL database when BROWSERDECK_TEST_DATABASE_URL is set. Returns the
 * official client pointed at it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Kernel from '@onkernel/sdk';
import { createEngine, type Engine } from '../../src/engine/index.js';
import type { EngineOptions } from '../../src/engine/config.js';
import type { Feature } from '../../src/engine/feature.js';

export interface TestEngine {
  engine: Engine;
  url: string;
  adminKey: string;
  dataDir: string;
  client: Kernel;
  /** A client with another key or project header. */
  clientWith(opts: { apiKey?: string; projectID?: string }): Kernel;
  /** fetch against the engine with the admin key unless headers say otherwise. */
  api(p: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** A new, empty database on the server at `baseUrl` (a role that may create databases), and how to drop it. */
export async function freshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bd_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      // pg's Pool.end() resolves before its connections have finished closing; killing those
      // with FORCE makes their client emit an unhandled FATAL (57P01). Let them go first.
      for (let i = 0; i < 100; i++) {
        const { rows } = await c.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * `features` replaces the engine's feature list (e.g. the defaults plus a test-only route).
 * `adminKey`: for an engine joining an already bootstrapped database (another node), which
 * writes no key file of its own.
 */
export async function startTestEngine(opts: EngineOptions = {}, features?: Feature[], known: { adminKey?: string } = {}): Promise<TestEngine> {
  const dataDir = opts.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-')));
  const pgBase = process.env.BROWSERDECK_TEST_DATABASE_URL;
  const pgDb = pgBase && !opts.databaseUrl ? await freshPostgresDatabase(pgBase) : undefined;
  // Errors only by default: a 500 in a test (an unhandled error) is then explained in the
  // output next to the failure instead of being a bare 'internal server error'.
  const engine = createEngine(
    {
      port: 0,
      logLevel: process.env.BROWSERDECK_TEST_LOG ?? 'error',
      print: () => {},
      // Standby browsers and freezing idle jails are off unless a test turns them on: a standby
      // browser per engine would double the suite's launches on a 2-core machine, and their own
      // tests (sessions/standby-*.test.ts) prove them.
      standby: 0,
      freezeIdleSeconds: 0,
      // Almost every browser test loads a local server on 127.0.0.1; a test of the loopback
      // refusal itself passes `egressLoopback: false` (the engine's own default).
      egressLoopback: true,
      ...opts,
      dataDir,
      databaseUrl: opts.databaseUrl ?? pgDb?.url,
    },
    features,
  );
  const { url } = await engine.start();
  const adminKey = known.adminKey ?? (await fs.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
  const clientWith = (o: { apiKey?: string; projectID?: string }) =>
    new Kernel({ apiKey: o.apiKey ?? adminKey, baseURL: url, projectID: o.projectID, maxRetries: 0 });
  return {
    engine,
    url,
    adminKey,
    dataDir,
    client: clientWith({}),
    clientWith,
    api(p, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${adminKey}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(url + p, { ...init, headers, body });
    },
    async stop() {
      await engine.stop();
      await pgDb?.drop();
      if (!opts.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
