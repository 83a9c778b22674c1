/**
 * Issue 25 row 4, the quota half: a tenant that writes into its session's `/tmp` until the disk
 * is full fills only its own filesystem. This root engine (loop devices work here) gives each
 * session a loop-mounted ext4 disk of `sessionDiskMb` (16 MiB here): `dd` past it fails with
 * ENOSPC inside the jail, the file lives on the session's own filesystem (not the data dir's),
 * the engine records one `system_limit_reached` `{resource: "disk"}` event in the session's telemetry, and meanwhile another
 * project's session create and an API-key create succeed. Control: a write below the quota
 * succeeds. The session's disk is unmounted and gone when it ends, and a crashed engine's
 * leftover disk is unmounted and removed by the recovery at the next start.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverSessions } from '../../../src/engine/domain/sessions/session-recovery.js';
import { RecoveryReport } from '../../../src/engine/domain/recovery-report.js';
import { SessionDisks } from '../../../src/engine/runtime/session/session-disks.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';

const QUOTA_MB = 16;
const MiB = 1024 * 1024;

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ sessionDiskMb: QUOTA_MB });
});
afterAll(async () => {
  await t?.stop();
});

const text = (b64?: string) => Buffer.from(b64 ?? '', 'base64').toString('utf8');
const mounted = (dir: string) =>
  fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === dir);

/** One request on a connection of its own (closed after it), answering its status. */
function sendAlone(method: string, p: string, contentType: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${t.url}${p}`,
      { method, agent: false, headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': contentType, 'content-length': body.length } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    // The engine may answer before the whole body is sent: an error after its answer changes nothing.
    req.on('error', reject);
    req.end(body);
  });
}

interface Health {
  limits: { disk: { method: string; per_session_mb: number; reserve_mb: number; low: boolean } };
}

async function diskFullEvents(id: string): Promise<Array<{ event: { type: string; data: Record<string, unknown> } }>> {
  const res = await t.api(`/browsers/${id}/telemetry/events?since=30m&limit=100&type=system_limit_reached`);
  expect(res.status).toBe(200);
  return (await res.json()) as Array<{ event: { type: string; data: Record<string, unknown> } }>;
}

describe("a session's filesystem has a byte quota", () => {
  it('healthz shows the disk limits: loop-mounted session disks of the configured size', async () => {
    const h = (await (await fetch(`${t.url}/healthz`)).json()) as Health;
    expect(h.limits.disk).toEqual({ method: 'loop', per_session_mb: QUOTA_MB, reserve_mb: 1024, low: false });
  });

  it('dd past the quota fails with ENOSPC on its own disk, one event says so, and other tenants carry on', async () => {
    const s = await t.client.browsers.create({ timeout_seconds: 300 });
    const sessionDir = path.join(t.dataDir, 'sessions', s.session_id);
    expect(mounted(sessionDir)).toBe(true);

    // Control: below the quota a write succeeds.
    const small = await t.client.browsers.process.exec(s.session_id, { command: 'dd', args: ['if=/dev/zero', 'of=/tmp/small', 'bs=1M', 'count=2'] });
    expect(small.exit_code).toBe(0);
    expect(await diskFullEvents(s.session_id)).toEqual([]);

    // Past it: the tenant's own write fails with ENOSPC.
    const big = await t.client.browsers.process.exec(s.session_id, { command: 'dd', args: ['if=/dev/zero', 'of=/tmp/big', 'bs=1M', `count=${QUOTA_MB * 4}`] });
    expect(big.exit_code).not.toBe(0);
    expect(text(big.stderr_b64)).toContain('No space left on device');
    // What it wrote lives on the session's filesystem, not the data dir's, and stopped at the quota.
    const written = fs.statSync(path.join(sessionDir, 'root', 'tmp', 'big'));
    expect(written.dev).not.toBe(fs.statSync(t.dataDir).dev);
    expect(written.size).toBeLessThan(QUOTA_MB * 1024 * 1024);

    // The engine noticed: one system_limit_reached event (resource disk) in the session's telemetry.
    const events = await pollUntil(
      'the disk limit event',
      () => diskFullEvents(s.session_id),
      (e) => e.length > 0,
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.event.data).toMatchObject({ resource: 'disk', limit_mb: QUOTA_MB });

    // The engine's own writes into the full session answer 507, never a 500: an upload (staged
    // in the session's temp dir) and a write_file. (Each on a connection of its own: the engine
    // answers before it has read the whole body.)
    const boundary = 'diskquota';
    const form = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="files[0][file]"; filename="up.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.alloc(4 * MiB, 1),
      Buffer.from(`\r\n--${boundary}\r\ncontent-disposition: form-data; name="files[0][dest_path]"\r\n\r\n/tmp/up.bin\r\n--${boundary}--\r\n`),
    ]);
    expect(await sendAlone('POST', `/browsers/${s.session_id}/fs/upload`, `multipart/form-data; boundary=${boundary}`, form)).toBe(507);
    expect(await sendAlone('PUT', `/browsers/${s.session_id}/fs/write_file?path=%2Ftmp%2Fw.bin`, 'application/octet-stream', Buffer.alloc(4 * MiB, 1))).toBe(
      507,
    );

    // Another project's tenant: its session create and an API-key create work meanwhile.
    const project = await t.client.projects.create({ name: 'disk-other-project' });
    const key = await t.client.apiKeys.create({ name: 'disk-other-key', project_id: project.id });
    const other = t.clientWith({ apiKey: key.key! });
    const theirs = await other.browsers.create({ timeout_seconds: 300 });
    const echo = await other.browsers.process.exec(theirs.session_id, { command: 'sh', args: ['-c', 'echo ok > /tmp/ok && cat /tmp/ok'] });
    expect(text(echo.stdout_b64)).toBe('ok\n');
    expect((await t.client.apiKeys.create({ name: 'disk-after-full' })).key).toBeTruthy();
    // Still one event: the full disk is reported once, not on every check.
    await t.client.browsers.process.exec(s.session_id, { command: 'dd', args: ['if=/dev/zero', 'of=/tmp/more', 'bs=1M', 'count=1'] });
    expect(await diskFullEvents(s.session_id)).toHaveLength(1);

    // Ending the session unmounts its disk and removes it with the session dir.
    await t.client.browsers.deleteByID(s.session_id);
    await pollUntil(
      'the session dir gone',
      async () => fs.existsSync(sessionDir),
      (exists) => !exists,
    );
    expect(mounted(sessionDir)).toBe(false);
    await other.browsers.deleteByID(theirs.session_id);
  });

  it("crash recovery unmounts a dead engine's leftover session disk and removes it", async () => {
    // What a killed engine leaves: a session dir that is still its own mounted disk, with files.
    const dataDir = fs.mkdtempSync(path.join(t.dataDir, 'crashed-'));
    const sessionsDir = path.join(dataDir, 'sessions');
    const leftover = path.join(sessionsDir, 'leftoverdisk000000000001');
    const disk = await new SessionDisks({ dataDir, perSessionMb: QUOTA_MB }).attach(leftover);
    expect(disk).toBeDefined();
    fs.mkdirSync(path.join(leftover, 'root', 'tmp'), { recursive: true });
    fs.writeFileSync(path.join(leftover, 'root', 'tmp', 'left'), 'x');
    expect(mounted(leftover)).toBe(true);

    const recovery = new RecoveryReport();
    try {
      await recoverSessions({ recovery, db: t.engine.context.db, nodeId: 'no-such-node', sessionsDir, owned: () => false, now: new Date() });
      expect(mounted(leftover)).toBe(false);
      expect(fs.readdirSync(sessionsDir)).toEqual([]);
      // Removed, not noted as a directory that could not go.
      expect(recovery.take()).toBeNull();
    } finally {
      // A failed recovery must not leave this test's mount behind.
      if (mounted(leftover)) await disk!.detach();
    }
  });
});
