/**
 * Online backup of the SQLite store under write load, and restore into a fresh engine:
 * `npm run serve -- backup <file>` runs while the engine creates and deletes API keys,
 * projects and credentials (each request also writes an audit row) and a browser session
 * runs; every row committed before the backup started is in the restored database, which
 * passes `PRAGMA integrity_check`; the secret key travels in the backup (0600), so a TOTP
 * secret encrypted by the first engine still yields the same code through the second's API.
 * Restore refuses while an engine runs on the data dir and when it already has a database.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { totpFromSecret } from '../../../src/engine/domain/credentials/totp.js';

const root = path.resolve(import.meta.dirname, '../../..');
// Made and removed inside the suite: on the PostgreSQL pass the suite is skipped, and vitest
// runs no hook of a file whose every test is skipped (a module-level dir was left behind).
let work = '';

/** `npm run serve -- <args>` as an operator runs it (the bootstrap, minus its install step). */
function serveCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, ['scripts/bootstrap.mjs', 'serve', '--', ...args], {
    cwd: root,
    env: { ...process.env, BROWSERDECK_SKIP_INSTALL: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, output })));
}

const TABLES = ['api_keys', 'projects', 'credentials', 'audit_logs', 'browser_sessions'] as const;
function idsIn(file: string): Record<string, Set<string>> {
  const db = new SQLite(file, { readonly: true });
  try {
    return Object.fromEntries(
      TABLES.map((t) => [t, new Set((db.prepare(`SELECT id FROM ${t}`).all() as Array<{ id: string | number }>).map((r) => String(r.id)))]),
    );
  } finally {
    db.close();
  }
}

describe.skipIf(process.env.BROWSERDECK_TEST_DATABASE_URL)('SQLite backup and restore', () => {
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-backup-'));
    // The data dirs live below it: a root engine's jail users must pass through (search only).
    fs.chmodSync(work, 0o711);
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('backs up under write load and restores into a fresh engine with nothing committed lost', async () => {
    const a = await startTestEngine({ dataDir: path.join(work, 'a') });
    let b: TestEngine | undefined;
    try {
      const cred = await a.client.credentials.create({
        name: 'bank',
        domain: 'bank.example',
        values: { username: 'u', password: 'p4ss' },
        totp_secret: 'JBSWY3DPEHPK3PXP',
      });
      const session = await a.client.browsers.create({ headless: true, timeout_seconds: 300 });

      // Write load: keys, projects and credentials created and deleted, each request audited.
      const deleted = new Set<string>();
      let stop = false;
      let rounds = 0;
      const load = (async () => {
        while (!stop) {
          const k = await a.client.apiKeys.create({ name: `load-${rounds}` });
          const p = await a.client.projects.create({ name: `load-${rounds}` });
          const c = await a.client.credentials.create({ name: `load-${rounds}`, domain: 'x.example', values: { password: `pw${rounds}` } });
          if (rounds % 2) {
            for (const id of [k.id, p.id, c.id]) deleted.add(id);
            await a.client.apiKeys.delete(k.id);
            await a.client.projects.delete(p.id);
            await a.client.credentials.delete(c.id);
          }
          rounds++;
        }
      })();
      while (rounds < 3) await new Promise((r) => setTimeout(r, 20));

      // Everything committed up to here must survive, unless the load deleted it before the backup
      // ended (a deletion racing the backup may or may not be in it).
      // (Reading the audit log first writes its batched rows, so they count as committed too.)
      await a.client.auditLogs.list({ start: new Date(Date.now() - 3600_000).toISOString(), end: new Date(Date.now() + 3600_000).toISOString(), limit: 1 });
      const before = idsIn(path.join(a.dataDir, 'browserdeck.sqlite'));
      const roundsBefore = rounds;
      const backupFile = path.join(work, 'backup.sqlite');
      const backup = await serveCli(['backup', backupFile, '--data-dir', a.dataDir]);
      const roundsAfter = rounds;
      const deletedByEnd = new Set(deleted);
      stop = true;
      await load;
      expect(backup.code, backup.output).toBe(0);
      expect(backup.output).toMatch(/contains the secret key/);
      expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
      // The load really ran while the backup did.
      expect(roundsAfter).toBeGreaterThan(roundsBefore);

      // A running engine's data dir is not restored over, nor one that has data.
      const refused = await serveCli(['restore', backupFile, '--data-dir', a.dataDir, '--force']);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/is running on/);
      await a.client.browsers.deleteByID(session.session_id);
      await a.stop();
      const occupied = await serveCli(['restore', backupFile, '--data-dir', a.dataDir]);
      expect(occupied.code).not.toBe(0);
      expect(occupied.output).toMatch(/already has browserdeck\.sqlite.*--force/);

      const fresh = path.join(work, 'b');
      const restored = await serveCli(['restore', backupFile, '--data-dir', fresh]);
      expect(restored.code, restored.output).toBe(0);
      expect(fs.readFileSync(path.join(fresh, 'secret.key'), 'utf8')).toBe(fs.readFileSync(path.join(a.dataDir, 'secret.key'), 'utf8'));

      const check = new SQLite(path.join(fresh, 'browserdeck.sqlite'), { readonly: true });
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      check.close();
      const after = idsIn(path.join(fresh, 'browserdeck.sqlite'));
      for (const table of TABLES) {
        const missing = [...before[table]].filter((id) => !after[table].has(id) && !deletedByEnd.has(id));
        expect(missing, `${table} rows committed before the backup`).toEqual([]);
      }
      expect(before.audit_logs.size).toBeGreaterThan(10);

      // A fresh engine on the restored dir: the admin key still works, the TOTP secret decrypts.
      b = await startTestEngine({ dataDir: fresh }, undefined, { adminKey: a.adminKey });
      expect((await b.client.credentials.retrieve(cred.id)).name).toBe('bank');
      // The code the restored engine computes from the secret it decrypted is the secret's code
      // (at the time before or after the request, should a 30 s step end in between).
      const at = new Date();
      const { code } = await b.client.credentials.totpCode(cred.id);
      expect([totpFromSecret('JBSWY3DPEHPK3PXP', at).code, totpFromSecret('JBSWY3DPEHPK3PXP', new Date()).code]).toContain(code);
    } finally {
      await b?.stop();
      await a.stop();
    }
  }, 180_000);
});
