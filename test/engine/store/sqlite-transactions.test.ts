import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStore, type Store } from '../../../src/engine/store/database.js';

// A second writer on the same WAL file, in another thread, like the audit worker.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const db = new (require(workerData.driver))(workerData.file);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.postMessage('closed'); return; }
  try { db.prepare('insert into scratch (who) values (?)').run('worker'); parentPort.postMessage('written'); }
  catch (err) { parentPort.postMessage('failed: ' + err.code); }
});
`;

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('SQLite transactions', () => {
  it('a transaction that reads, then writes, survives another connection committing in between', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-store-'));
    store = await openStore({ dataDir: dir });
    await sql`create table scratch (who text not null)`.execute(store.db);
    const worker = new Worker(WRITER, { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file: store.sqliteFile } });
    const next = () => new Promise<string>((resolve) => worker.once('message', resolve));
    try {
      let workerAnswer: Promise<string> | undefined;
      await store.db.transaction().execute(async (trx) => {
        await trx.selectFrom('browser_sessions').select('id').execute();
        workerAnswer = next();
        worker.postMessage('write');
        // Give the worker the window it had in production: with a deferred BEGIN it commits
        // now and the insert below fails with SQLITE_BUSY_SNAPSHOT; with BEGIN IMMEDIATE it
        // waits for this transaction to commit.
        await Promise.race([workerAnswer, new Promise((r) => setTimeout(r, 300))]);
        await sql`insert into scratch (who) values ('engine')`.execute(trx);
      });
      expect(await workerAnswer).toBe('written');
      const rows = await sql<{ who: string }>`select who from scratch order by who`.execute(store.db);
      expect(rows.rows.map((r) => r.who)).toEqual(['engine', 'worker']);
    } finally {
      const closed = next();
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    }
  });
});
