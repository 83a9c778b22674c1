/**
 * `GET /system` (the console's System page): the store's location, the data dir's free space
 * and the engine's last log lines — only the message of a line, never its other fields — for an
 * org-wide key; a project-scoped key gets 403 and no body of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import type { SystemStatus } from '../../../src/shared/wire/system-status.js';
import { postgresLocation } from '../../../src/engine/api/system.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

describe('GET /system', () => {
  it('answers the store, the data dir and the log tail to an org-wide key', async () => {
    // The test engine logs errors only; this one line goes to its output and into the tail.
    t.engine.context.log.error({ api_key: 'sk-should-not-show' }, 'system-tail-marker');
    const res = await t.api('/system');
    expect(res.status).toBe(200);
    const body = (await res.json()) as SystemStatus;
    const dataDir = t.engine.context.config.dataDir;
    if (body.store.kind === 'sqlite') {
      expect(body.store.location).toBe(path.join(dataDir, 'browserdeck.sqlite'));
      expect(fs.existsSync(body.store.location)).toBe(true);
    } else expect(body.store.location).not.toMatch(/@|password/);
    expect(body.data_dir.path).toBe(dataDir);
    expect(body.data_dir.free_bytes).toBeGreaterThan(0);
    expect(body.data_dir.total_bytes).toBeGreaterThanOrEqual(body.data_dir.free_bytes);
    expect(body.data_dir.reserve_bytes).toBe(t.engine.context.config.diskReserveMb * 1024 * 1024);
    expect(body.log.at(-1)).toMatchObject({ level: 'error', msg: 'system-tail-marker' });
    expect(JSON.stringify(body.log)).not.toContain('sk-should-not-show');
  });

  it('is refused to a project-scoped key', async () => {
    const ctx = t.engine.context;
    const projectId = await ctx.projects.defaultProjectId(ctx.orgId);
    const { key } = await ctx.apiKeys.issue({ orgId: ctx.orgId, name: 'project-only', projectId, createdById: null, expiresAt: null });
    const res = await t.api('/system', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
    expect(JSON.stringify(await res.json())).not.toContain(ctx.config.dataDir);
  });

  it('names a PostgreSQL store by host, port and database only', () => {
    expect(postgresLocation('postgres://bd:s3cret@db.internal:6543/browserdeck?sslmode=require')).toBe('db.internal:6543/browserdeck');
    expect(postgresLocation('postgresql://localhost/bd')).toBe('localhost:5432/bd');
  });
});
