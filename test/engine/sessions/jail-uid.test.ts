/**
 * Jails of an engine running as root run as unprivileged host users (runtime/sandbox/jail-user.ts).
 * bwrap is not setuid: started by root, a jail was host root with its capabilities dropped, so a
 * root-only file the mask list misses (planted here: `/etc/browserdeck-test-secret-<pid>`, 0600
 * root) was readable from a page, a process, a PTY, Playwright code and an app. Each is tried as
 * a tenant with a project-scoped key; then every process of two sessions' jails (found by their
 * session dirs in /proc) is checked for a non-zero host uid, different between the sessions.
 * Only meaningful when the tests run as root (a non-root engine's jails are its own user).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { createEngine } from '../../../src/engine/engine.js';
import { descendants, pidsWith } from '../../helpers/proc.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { deploy, logLines } from '../apps/app-helpers.js';

const asRoot = process.getuid?.() === 0 && Boolean(await usableBwrap());
const SECRET_FILE = `/etc/browserdeck-test-secret-${process.pid}`;
const SECRET = `root-only secret ${process.pid}`;
const RANGE = { base: 300_000 + (process.pid % 1000) * 100, count: 100 };

let te: TestEngine;
let tenant: Kernel;
const sessions: string[] = [];

beforeAll(async () => {
  if (!asRoot) return;
  fs.writeFileSync(SECRET_FILE, SECRET, { mode: 0o600 });
  // Like a root shell's engine: supplementary groups (root, adm) a jail must not inherit.
  process.setgroups?.([0, 4]);
  // The operator's range (--jail-uid-base/--jail-uid-count), kept apart from other engines on this host.
  te = await startTestEngine({ jailUids: { base: RANGE.base, count: RANGE.count } });
  const project = await te.client.projects.create({ name: 'jail-uid' });
  const key = await te.client.apiKeys.create({ name: 'jail-uid-key', project_id: project.id });
  tenant = te.clientWith({ apiKey: key.key! });
  for (let i = 0; i < 2; i++) sessions.push((await tenant.browsers.create({ headless: i === 0 })).session_id);
});
afterAll(async () => {
  fs.rmSync(SECRET_FILE, { force: true });
  await te?.stop();
  if (asRoot) process.setgroups?.([]);
});

/** Host uid (real, effective, saved, fs) of a live process, or undefined once it is gone. */
function uidsOf(pid: number): number[] | undefined {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Uid:'));
    return line?.split(/\s+/).slice(1, 5).map(Number);
  } catch {
    return undefined;
  }
}

describe.runIf(asRoot)('jails of a root engine run as unprivileged host users', () => {
  it('refuses to start with a range that is not unprivileged uids', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-uids-'));
    const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, jailUids: { base: 0, count: 10 } });
    try {
      await expect(engine.start()).rejects.toThrow(/jail uid range 0\+10 is not a range of unprivileged uids/);
    } finally {
      await engine.stop().catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a page cannot read a root-only file through file://', async () => {
    const s = await tenant.browsers.retrieve(sessions[0]);
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const page = await browser.contexts()[0].newPage();
      const shown = await page.goto(`file://${SECRET_FILE}`).then(
        () => page.evaluate(() => document.body?.innerText ?? ''),
        (err: Error) => `navigation failed: ${err.message}`,
      );
      expect(shown).not.toContain(SECRET);
      await page.close();
      // A page reads a file of its own session (the refusal is about the owner, not file: URLs).
      await tenant.browsers.fs.writeFile(sessions[0], 'own file', { path: '/tmp/own.txt' });
      const own = await browser.contexts()[0].newPage();
      await own.goto('file:///tmp/own.txt');
      expect(await own.evaluate(() => document.body.innerText)).toContain('own file');
    } finally {
      await browser.close();
    }
  });

  it('a process (exec) cannot read it, and is root inside as before', async () => {
    const r = await tenant.browsers.process.exec(sessions[0], { command: 'sh', args: ['-c', `cat ${SECRET_FILE}; echo "uid=$(id -u)"`] });
    const out = Buffer.from(r.stdout_b64 ?? '', 'base64').toString() + Buffer.from(r.stderr_b64 ?? '', 'base64').toString();
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/Permission denied/);
    expect(out).toContain('uid=0');
  });

  it('with --insecure-no-jail, a session process still runs in bwrap as a jail user and cannot read it', async () => {
    // The browser runs unjailed; its processes still get bwrap, and must not be host root there.
    const loose = await startTestEngine({ insecureNoJail: true, jailUids: { base: RANGE.base + 50, count: 50 } });
    try {
      const s = await loose.client.browsers.create({ headless: true });
      const r = await loose.client.browsers.process.exec(s.session_id, { command: 'sh', args: ['-c', `cat ${SECRET_FILE}; echo done`] });
      const out = Buffer.from(r.stdout_b64 ?? '', 'base64').toString() + Buffer.from(r.stderr_b64 ?? '', 'base64').toString();
      expect(out).not.toContain(SECRET);
      expect(out).toMatch(/Permission denied/);
      expect(out).toContain('done');
    } finally {
      await loose.stop();
    }
  });

  it('a PTY process cannot read it, and keeps no supplementary group of the engine', async () => {
    const p = tenant.browsers.process;
    const sp = await p.spawn(sessions[0], {
      command: 'sh',
      args: ['-c', `cat ${SECRET_FILE}; echo "groups=$(cat /proc/self/status | grep ^Groups: | cut -f2)."; sleep 1`],
      allocate_tty: true,
    });
    let out = '';
    const stream = await p.stdoutStream(sp.process_id!, { id: sessions[0] });
    for await (const e of stream) {
      if (e.data_b64) out += Buffer.from(e.data_b64, 'base64').toString();
      if (e.event === 'exit') break;
    }
    expect(out).toContain('groups=');
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/Permission denied/);
    expect(out).toMatch(/groups=\s*\./);
  });

  it('Playwright code cannot read it', async () => {
    const r = await tenant.browsers.playwright.execute(sessions[0], {
      code: `const fs = await import('node:fs'); try { return fs.readFileSync(${JSON.stringify(SECRET_FILE)}, 'utf8'); } catch (e) { return 'ERR ' + e.code; }`,
      timeout_sec: 120,
    });
    expect(r.success, `${r.error}\n${r.stderr}`).toBe(true);
    expect(r.result).toBe('ERR EACCES');
  });

  it('an app invocation cannot read it', async () => {
    const app = `
import fs from 'node:fs';
import Kernel from '@onkernel/sdk';
new Kernel().app('uid-probe').action('read', async (_ctx) => { try { return fs.readFileSync(${JSON.stringify(SECRET_FILE)}, 'utf8'); } catch (e) { return 'ERR ' + e.code; } });
`;
    const { final, events } = await deploy(tenant, { 'index.mjs': app }, { entrypoint: 'index.mjs', version: 'u1' });
    expect(final.status, `${final.status_reason}\n${logLines(events).join('\n')}`).toBe('running');
    const inv = await tenant.invocations.create({ app_name: 'uid-probe', action_name: 'read', version: 'u1' });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    expect(JSON.parse(inv.output!)).toBe('ERR EACCES');
  });

  it('every process of a session runs as a non-root host uid of its own', async () => {
    // Start the other kinds of jail too: a process that stays, and a recording (ffmpeg).
    for (const id of sessions) await tenant.browsers.process.spawn(id, { command: 'sleep', args: ['600'] });
    const uidsOfSession = (id: string): Map<number, number[]> => {
      const marker = path.join(te.dataDir, 'sessions', id);
      const pids = [...new Set(pidsWith(marker).flatMap((pid) => descendants(pid)))];
      const out = new Map<number, number[]>();
      for (const pid of pids) {
        const u = uidsOf(pid);
        if (u) out.set(pid, u);
      }
      return out;
    };
    const seen = sessions.map(uidsOfSession);
    const uidSets = seen.map((m) => new Set([...m.values()].flat()));
    for (const [i, m] of seen.entries()) {
      // A browser (with its zygotes and renderers), the jail helper, the sleeping process…
      expect(m.size, `processes of session ${i}`).toBeGreaterThan(4);
      for (const [pid, u] of m) expect(u, `pid ${pid} of session ${i}`).not.toContain(0);
      expect(uidSets[i].size, `session ${i} runs as one uid`).toBe(1);
    }
    const [a, b] = uidSets.map((s) => [...s][0]);
    expect(a).not.toBe(b);
    for (const u of [a, b]) expect(u >= RANGE.base && u < RANGE.base + RANGE.count, `${u} in the operator's range`).toBe(true);
    // Recorded as the owner of the session root.
    expect(fs.statSync(path.join(te.dataDir, 'sessions', sessions[0], 'root')).uid).toBe(a);
  });

  it('what the fs API writes belongs to the session, and owner 0 means the session user', async () => {
    const id = sessions[0];
    await tenant.browsers.fs.writeFile(id, 'by the engine', { path: '/made/by/api.txt' });
    const r = await tenant.browsers.process.exec(id, {
      command: 'sh',
      args: ['-c', 'echo changed >> /made/by/api.txt && mkdir /made/by/sub && cat /made/by/api.txt'],
    });
    expect(Buffer.from(r.stdout_b64 ?? '', 'base64').toString(), Buffer.from(r.stderr_b64 ?? '', 'base64').toString()).toContain('changed');
    await tenant.browsers.fs.setFilePermissions(id, { path: '/made/by/api.txt', mode: '600', owner: 'root', group: '0' });
    const r2 = await tenant.browsers.process.exec(id, { command: 'sh', args: ['-c', 'echo again >> /made/by/api.txt && stat -c %u /made/by/api.txt'] });
    expect(r2.exit_code, Buffer.from(r2.stderr_b64 ?? '', 'base64').toString()).toBe(0);
    expect(
      Buffer.from(r2.stdout_b64 ?? '', 'base64')
        .toString()
        .trim(),
    ).toBe('0');
    // On the host: the session's uid, for the file and the directories the API made on the way.
    const root = path.join(te.dataDir, 'sessions', id, 'root');
    const sessionUid = fs.statSync(root).uid;
    expect(sessionUid).not.toBe(0);
    for (const p of ['made', 'made/by', 'made/by/api.txt']) expect(fs.statSync(path.join(root, p)).uid, p).toBe(sessionUid);
  });

  it("a tenant cannot give the session root to another host user (its owner is the session's jail user)", async () => {
    const id = sessions[0];
    const root = path.join(te.dataDir, 'sessions', id, 'root');
    const sessionUid = fs.statSync(root).uid;
    // Another session's uid, or any host user: every later jail of this session would run as it.
    for (const [owner, group] of [
      [String(sessionUid + 1), undefined],
      ['1000', undefined],
      [undefined, '1000'],
    ]) {
      const err = await tenant.browsers.fs.setFilePermissions(id, { path: '/', mode: '755', owner, group }).then(
        () => undefined,
        (e: { status?: number; error?: { code?: string } }) => e,
      );
      expect(err?.status, `owner ${owner} group ${group}`).toBe(403);
      expect(fs.statSync(root).uid).toBe(sessionUid);
      expect(fs.statSync(root).gid).toBe(sessionUid);
    }
    // Through a link to the root as well.
    await tenant.browsers.process.exec(id, { command: 'ln', args: ['-sfn', '/', '/to-root'] });
    await expect(tenant.browsers.fs.setFilePermissions(id, { path: '/to-root', mode: '755', owner: '1000' })).rejects.toMatchObject({ status: 403 });
    expect(fs.statSync(root).uid).toBe(sessionUid);
    // Its own user (0 inside) stays allowed.
    await tenant.browsers.fs.setFilePermissions(id, { path: '/', mode: '755', owner: 'root', group: '0' });
    expect(fs.statSync(root).uid).toBe(sessionUid);
    const r = await tenant.browsers.process.exec(id, { command: 'sh', args: ['-c', 'id -u'] });
    expect(
      Buffer.from(r.stdout_b64 ?? '', 'base64')
        .toString()
        .trim(),
    ).toBe('0');
  });
});
