/**
 * Runs the SQLite audit INSERTs in a worker thread with its own connection to the same WAL
 * database, so neither the inserts nor the WAL checkpoints they trigger (an fsync) ever block
 * the event loop that serves requests. The worker is a few lines of plain CommonJS, started
 * from a string, so it needs no build step or TypeScript loader in any host (tsx, vitest,
 * Electron). If it cannot start or dies, `fallback` takes over and no batch is lost: a batch
 * whose answer never came is reported as failed and the writer retries it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_BATCH_INSERT, sqliteBatchJson, type BatchInsert } from './audit-insert.js';
import type { AuditRecord } from './audit-record.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const insert = db.prepare(workerData.sql);
parentPort.on('message', (m) => {
  if (m.close) { db.close(); parentPort.postMessage({ closed: true }); return; }
  try { insert.run(m.json); parentPort.postMessage({ id: m.id }); }
  catch (err) { parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) }); }
});
`;

export interface SqliteAuditWorker {
  insert: BatchInsert;
  close(): Promise<void>;
}

export function startSqliteAuditWorker(file: string, fallback: BatchInsert, onFailure: (err: unknown) => void): SqliteAuditWorker {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | undefined;
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const giveUp = (err: unknown): void => {
    if (!worker) return;
    worker = undefined;
    onFailure(err);
    for (const p of pending.values()) p.reject(new Error('audit worker stopped'));
    pending.clear();
  };
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, sql: SQLITE_BATCH_INSERT } });
    worker.unref();
    worker.on('message', (m: { id?: number; error?: string }) => {
      const p = m.id === undefined ? undefined : pending.get(m.id);
      if (!p) return;
      pending.delete(m.id!);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve();
    });
    worker.on('error', giveUp);
    worker.on('exit', (code) => giveUp(new Error(`audit worker exited with code ${code}`)));
  } catch (err) {
    giveUp(err);
  }

  return {
    insert(rows: AuditRecord[]) {
      const w = worker;
      if (!w) return fallback(rows);
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, json: sqliteBatchJson(rows) });
      });
    },
    async close() {
      const w = worker;
      if (!w) return;
      worker = undefined;
      // Let the worker close its connection (checkpointing its WAL share) before it ends.
      await new Promise<void>((resolve) => {
        w.once('message', () => resolve());
        w.once('exit', () => resolve());
        w.postMessage({ close: true });
      });
      await w.terminate();
    },
  };
}
