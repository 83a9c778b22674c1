/**
 * A clean stop loses no audit rows: requests answered just before `stop()` — still waiting in
 * the writer's queue — and requests in flight while the server shuts down are all stored,
 * as a new engine opened on the same data (SQLite file or PostgreSQL database) shows.
 *
 * @database the writer flushes to each store on stop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEngine } from '../../helpers/engine.js';
import { createEngine } from '../../../src/engine/engine.js';
import { features } from '../../../src/engine/features.js';
import type { Feature } from '../../../src/engine/feature.js';

/** A request that is still being handled when the engine stops (it only ends with its connection). */
let slowArrived!: () => void;
const slowInFlight = new Promise<void>((resolve) => (slowArrived = resolve));
const slowFeature: Feature = {
  name: 'audit-slow-probe',
  register(app) {
    app.get('/audit-probe/slow', async (req) => {
      slowArrived();
      await new Promise((resolve) => req.raw.once('close', resolve));
      return { ok: true };
    });
  },
};

describe('audit log at engine stop', () => {
  it('stores every answered request, including those still queued and those in flight', async () => {
    const first = await startTestEngine({}, [...features, slowFeature]);
    const N = 60;
    for (let i = 0; i < N; i++) expect((await first.api(`/org/projects?stop-marker=seq-${i}`)).status).toBe(200);
    // A burst still running while the engine stops: each either gets an answer or a reset.
    const burst = Array.from({ length: 40 }, (_, i) =>
      first.api(`/org/projects?stop-marker=burst-${i}`).then(
        (r) => r.status,
        () => 0,
      ),
    );
    const slow = first.api('/audit-probe/slow?stop-marker=slow').then(
      (r) => r.status,
      () => 0,
    );
    await slowInFlight;
    await first.engine.stop();
    expect(await slow).toBe(0); // the server cut it off
    const answered = (await Promise.all(burst)).filter((s) => s > 0).length;

    const second = await startTestEngine({ dataDir: first.dataDir, databaseUrl: first.engine.config.databaseUrl });
    try {
      const rows = await second.engine.context.db.selectFrom('audit_logs').select(['path', 'status']).where('path', 'like', '%stop-marker=%').execute();
      const seq = rows.filter((r) => r.path.includes('=seq-'));
      expect(seq).toHaveLength(N);
      expect(new Set(seq.map((r) => r.path)).size).toBe(N);
      expect(seq.every((r) => r.status === 200)).toBe(true);
      const burstRows = rows.filter((r) => r.path.includes('=burst-'));
      // Every request the server answered is recorded (ones reset before being read may not be).
      expect(burstRows.length).toBeGreaterThanOrEqual(answered);
      // The request cut off by the stop is recorded too, as closed before any response.
      expect(rows.filter((r) => r.path === '/audit-probe/slow?stop-marker=slow')).toEqual([{ path: '/audit-probe/slow?stop-marker=slow', status: 499 }]);
      const found = await second.client.auditLogs.list({
        start: new Date(Date.now() - 3600_000).toISOString(),
        end: new Date(Date.now() + 60_000).toISOString(),
        search: 'stop-marker=seq-',
        limit: 100,
      });
      expect(found.getPaginatedItems()).toHaveLength(N);
    } finally {
      await second.engine.stop();
      await first.stop();
    }
  });

  it('closes the audit worker also when the start fails after it opened (a locked keychain)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-audit-failstart-'));
    const dbFile = path.join(dataDir, 'browserdeck.sqlite');
    const openOnDb = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === dbFile;
        } catch {
          return false;
        }
      }).length;
    const engine = createEngine({
      dataDir,
      port: 0,
      logLevel: 'silent',
      print: () => {},
      identity: { secretKeyProvider: { description: 'locked', getKey: () => Promise.reject(new Error('keychain locked')) } },
    });
    try {
      await expect(engine.start()).rejects.toThrow('keychain locked');
      // The engine's own connection and the audit worker's.
      await expect.poll(openOnDb).toBe(2);
      await engine.stop();
      expect(openOnDb()).toBe(0);
    } finally {
      await engine.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
