/**
 * Issue 25 row 4, the reserve half: the engine keeps `--disk-reserve-mb` of its data dir free
 * for its own writes (SQLite, audit rows). The data dir here is a 64 MiB tmpfs the test mounts;
 * with room, a session create and an upload work (control). Filled from outside to below the
 * reserve, a session create and an upload are refused with 507 `insufficient_storage` naming the
 * reserve, `/healthz` says `low`, and an API-key create (a small write) still works. Freed
 * again, creates work again.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toFile } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

const RESERVE_MB = 24;
const MiB = 1024 * 1024;

const mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-reserve-'));
const dataDir = path.join(mountDir, 'data');
const filler = path.join(mountDir, 'filler');
let t: TestEngine;

beforeAll(async () => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'none', mountDir]);
  fs.mkdirSync(dataDir);
  t = await startTestEngine({ dataDir, diskReserveMb: RESERVE_MB, sessionDiskMb: 16 });
});
afterAll(async () => {
  await t?.stop();
  execFileSync('umount', ['-l', mountDir]);
  fs.rmdirSync(mountDir);
});

const freeBytes = () => {
  const s = fs.statfsSync(dataDir);
  return s.bavail * s.bsize;
};
const low = async () => ((await (await fetch(`${t.url}/healthz`)).json()) as { limits: { disk: { low: boolean } } }).limits.disk.low;
const upload = async (id: string) =>
  t.client.browsers.fs.upload(id, { files: [{ dest_path: '/tmp/up.txt', file: await toFile(Buffer.from('hello'), 'up.txt') }] });

async function createStatus(): Promise<{ status: number; body: { code?: string; message?: string; session_id?: string } }> {
  const res = await t.api('/browsers', { method: 'POST', json: { timeout_seconds: 120 } });
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string; session_id?: string } };
}

describe("the data dir's free-space reserve", () => {
  it('refuses session creates and uploads below the reserve with 507, while an API-key create works', async () => {
    // Control: with room, a create and an upload work.
    expect(await low()).toBe(false);
    const ok = await createStatus();
    expect(ok.status).toBe(200);
    const id = ok.body.session_id!;
    await upload(id);

    // Filled from outside until less than the reserve is free.
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - (RESERVE_MB / 2) * MiB)));
    expect(freeBytes()).toBeLessThan(RESERVE_MB * MiB);
    expect(await low()).toBe(true);

    const refused = await createStatus();
    expect(refused.status).toBe(507);
    expect(refused.body.code).toBe('insufficient_storage');
    expect(refused.body.message).toContain(`reserve of ${RESERVE_MB} MiB`);
    await expect(upload(id)).rejects.toMatchObject({ status: 507 });
    // A small write of the engine's own still works.
    expect((await t.client.apiKeys.create({ name: 'while-low' })).key).toBeTruthy();

    // Freed: creates work again.
    fs.rmSync(filler);
    expect(await low()).toBe(false);
    const again = await createStatus();
    expect(again.status).toBe(200);
    await t.client.browsers.deleteByID(again.body.session_id!);
    await t.client.browsers.deleteByID(id);
  });
});
