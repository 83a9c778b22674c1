/**
 * The batching writer on a real SQLite store: rows are written by few multi-row INSERTs (not
 * one per request), every column intact, nothing is written before the batch is due, and `close()` writes all.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawNode, ValueNode, type KyselyPlugin } from 'kysely';
import { openStore, type Store } from '../../../src/engine/store/database.js';
import { AuditWriter } from '../../../src/engine/domain/audit/audit-writer.js';
import { kyselyBatchInsert } from '../../../src/engine/domain/audit/audit-insert.js';
import { startSqliteAuditWorker } from '../../../src/engine/domain/audit/audit-sqlite-worker.js';
import type { AuditRecord } from '../../../src/engine/domain/audit/audit-record.js';

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function row(i: number): AuditRecord {
  return {
    org_id: 'org',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    auth_strategy: 'none',
    user_id: '',
    email: '',
    method: 'GET',
    path: `/x/${i}`,
    route: '',
    domain: 'localhost',
    service: 'x',
    client_ip: '127.0.0.1',
    user_agent: '',
    status: 200,
    duration_ms: 0,
  };
}

describe('AuditWriter', () => {
  it('writes queued rows in multi-row batches and everything on close', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-audit-writer-'));
    store = await openStore({ dataDir: dir });
    const inserts: number[] = [];
    const counter: KyselyPlugin = {
      transformQuery(args) {
        // One statement per batch, its rows in one JSON parameter.
        if (RawNode.is(args.node) && args.node.parameters.some((p) => RawNode.is(p) && p.sqlFragments[0].startsWith('insert into audit_logs'))) {
          const param = args.node.parameters.find(ValueNode.is);
          inserts.push(param ? (JSON.parse(String(param.value)) as unknown[]).length : -1);
        }
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    };
    const writer = new AuditWriter(kyselyBatchInsert(store.db.withPlugin(counter), 'sqlite'), { intervalMs: 60_000, maxBatch: 500 });
    for (let i = 0; i < 1_234; i++) writer.add(row(i));
    // The two full batches were started as soon as they filled; the rest waits for the timer.
    await writer.flush();
    expect(
      await store.db
        .selectFrom('audit_logs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 1234 });
    expect(inserts).toEqual([500, 500, 234]);
    writer.add(row(5000));
    expect(writer.pending).toBe(1);
    await writer.close();
    expect(writer.pending).toBe(0);
    expect(inserts).toEqual([500, 500, 234, 1]);
    const stored = await store.db.selectFrom('audit_logs').selectAll().where('path', '=', '/x/5000').executeTakeFirstOrThrow();
    expect({ ...stored, id: undefined }).toEqual({ ...row(5000), id: undefined });
  });

  it('keeps rows queued when a write fails and writes them once the database accepts', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-audit-writer-'));
    store = await openStore({ dataDir: dir });
    let fail = true;
    const flaky: KyselyPlugin = {
      transformQuery(args) {
        if (fail && RawNode.is(args.node)) throw new Error('database unavailable');
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    };
    const errors: number[] = [];
    const writer = new AuditWriter(kyselyBatchInsert(store.db.withPlugin(flaky), 'sqlite'), { intervalMs: 60_000, onError: (_e, n) => errors.push(n) });
    for (let i = 0; i < 3; i++) writer.add(row(i));
    await writer.flush();
    expect(errors).toEqual([3]);
    expect(writer.pending).toBe(3);
    fail = false;
    await writer.close();
    const rows = await store.db.selectFrom('audit_logs').select('path').orderBy('id').execute();
    expect(rows.map((r) => r.path)).toEqual(['/x/0', '/x/1', '/x/2']);
  });

  it('writes through the SQLite worker thread, and falls back to the main thread if the worker dies', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-audit-writer-'));
    store = await openStore({ dataDir: dir });
    let fallbackRows = 0;
    const direct = kyselyBatchInsert(store.db, 'sqlite');
    const failures: unknown[] = [];
    const worker = startSqliteAuditWorker(
      store.sqliteFile!,
      async (rows) => {
        fallbackRows += rows.length;
        await direct(rows);
      },
      (err) => failures.push(err),
    );
    const writer = new AuditWriter(worker.insert, { intervalMs: 60_000, maxBatch: 100 });
    for (let i = 0; i < 250; i++) writer.add(row(i));
    await writer.flush();
    // Written by the worker's own connection, read back through the engine's.
    const paths = (await store.db.selectFrom('audit_logs').select('path').orderBy('id').execute()).map((r) => r.path);
    expect(paths).toEqual(Array.from({ length: 250 }, (_, i) => `/x/${i}`));
    expect(fallbackRows).toBe(0);
    expect(failures).toEqual([]);
    // Kill the worker: later batches go through the fallback, nothing is lost.
    await worker.close();
    for (let i = 250; i < 260; i++) writer.add(row(i));
    await writer.close();
    expect(fallbackRows).toBe(10);
    const n = await store.db
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(260);
  });
});
