/**
 * Issue 25 rows 6 and 7: `/fs/watch` stays inside the session and within its budget. A session
 * process plants links to `/` and to the engine's data dir in a watched dir and swaps a watched
 * directory for a link (rename, and renameat2's exchange); the test then touches host files
 * outside the session — in the data dir and under the host's /tmp — and no event names them,
 * the engine process holds no inotify watch at all, and the session's watcher holds none on an
 * inode outside its session root. With a budget of 50 directories per session (scaled down), a
 * 200-directory tree is refused with 409 `watch_limit` and a line in the session's log, a tree
 * that grows past it ends its watch, while the same session's smaller tree, and another
 * tenant's watch and API, work on. Before the fix the engine watched with Node's recursive
 * fs.watch, as root, in its own process: it held one inotify watch per entry of the tree,
 * followed links, and watched trees of any size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { collect, dirInodes, inotifyInodes, waitFor, watcherPids } from './fs-watch-helpers.js';

const BUDGET = 50;
let te: TestEngine;
let tenant: Kernel;
let other: Kernel;
/** The tenant's key, for the routes the SDK of the registry does not have (telemetry events). */
let tenantKey: string;
const hostTmp: string[] = [];

beforeAll(async () => {
  te = await startTestEngine({ fsWatchMaxDirs: BUDGET });
  const key = async (name: string) => {
    const project = await te.client.projects.create({ name });
    const apiKey = (await te.client.apiKeys.create({ name: `${name}-key`, project_id: project.id })).key!;
    if (name === 'watcher') tenantKey = apiKey;
    return te.clientWith({ apiKey });
  };
  tenant = await key('watcher');
  other = await key('bystander');
}, 60_000);

afterAll(async () => {
  await te?.stop();
  for (const p of hostTmp) fs.rmSync(p, { recursive: true, force: true });
});

function rootOf(id: string): string {
  return (te.engine.services.sessions as unknown as { get(id: string): { dirs: { root: string } } }).get(id).dirs.root;
}

async function sh(client: Kernel, id: string, script: string): Promise<void> {
  const r = await client.browsers.process.exec(id, { command: 'sh', args: ['-c', script] });
  expect(r.exit_code, Buffer.from(r.stderr_b64 ?? '', 'base64').toString()).toBe(0);
}

describe('fs watches are confined to the session', () => {
  it('follows no link out of the session: no event names a host file, no watch sits outside the session root', async () => {
    const s = await tenant.browsers.create({ headless: true, timeout_seconds: 300 });
    const id = s.session_id;
    const root = rootOf(id);
    const tag = randomUUID().slice(0, 8);
    await tenant.browsers.fs.createDirectory(id, { path: '/tmp/w/inside' });
    await tenant.browsers.fs.createDirectory(id, { path: '/tmp/w/swapped' });
    await tenant.browsers.fs.createDirectory(id, { path: '/tmp/w/exchanged' });
    const { watch_id } = await tenant.browsers.fs.watch.start(id, { path: '/tmp/w', recursive: true });
    const w = await collect(tenant, id, watch_id!);
    // The watch runs outside the engine process: it holds no inotify watch (Node's recursive
    // fs.watch in the engine held one per entry, and then walked the host through the links).
    expect(inotifyInodes(process.pid)).toEqual([]);

    // Links to the host's / and to the engine's data dir, to its admin key and /etc/shadow, a directory moved away for a link in
    // its place, and one exchanged with a link in one renameat2(RENAME_EXCHANGE) (316 on x86-64,
    // 276 on arm64; `mv --exchange` needs coreutils 9.5).
    const renameat2 = process.arch === 'arm64' ? 276 : 316;
    await sh(
      tenant,
      id,
      [
        'ln -s / /tmp/w/root',
        `ln -s ${te.dataDir} /tmp/w/data`,
        `ln -s ${te.dataDir}/admin-api-key /tmp/w/key`,
        'ln -s /etc/shadow /tmp/w/shadow',
        'mv /tmp/w/swapped /tmp/swapped.away',
        `ln -s ${te.dataDir} /tmp/w/swapped`,
        `ln -s ${te.dataDir} /tmp/exchange-link`,
        `perl -e 'my ($a, $b) = ("/tmp/w/exchanged", "/tmp/exchange-link"); syscall(${renameat2}, -100, $a, -100, $b, 2) == 0 or die "renameat2: $!"'`,
      ].join(' && '),
    );
    expect(fs.lstatSync(path.join(root, 'tmp/w/exchanged')).isSymbolicLink()).toBe(true);
    await waitFor(() =>
      ['root', 'data', 'key', 'shadow', 'swapped', 'exchanged'].every((n) => w.seen.some((e) => e.type === 'CREATE' && e.path === `/tmp/w/${n}`)),
    );

    // The host changes outside the session: a file in the data dir, one in another session's
    // place under it, one in the host's /tmp.
    const hostFiles = [path.join(te.dataDir, `host-probe-${tag}`), path.join(te.dataDir, 'sessions', `host-probe-dir-${tag}`)];
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), `host-probe-${tag}-`));
    hostTmp.push(tmpDir, ...hostFiles);
    hostFiles.push(path.join(tmpDir, `host-probe-${tag}.txt`));
    for (const f of hostFiles) fs.writeFileSync(f, 'host');
    fs.writeFileSync(path.join(os.tmpdir(), `host-probe-${tag}.txt`), 'host');
    hostTmp.push(path.join(os.tmpdir(), `host-probe-${tag}.txt`));

    // Control: a change inside the watched dir (below a subdirectory) is reported.
    await tenant.browsers.fs.writeFile(id, 'inside', { path: '/tmp/w/inside/control.txt' });
    await waitFor(() => w.seen.some((e) => e.type === 'CREATE' && e.path === '/tmp/w/inside/control.txt'));
    w.stop();
    await w.ended;

    const named = w.seen.filter((e) => e.path.includes(tag) || e.path.includes('host-probe') || !e.path.startsWith('/tmp/w/'));
    expect(named).toEqual([]);
    // Nothing below a link was ever reported: every event is a name the session made.
    expect(w.seen.filter((e) => /^\/tmp\/w\/(root|data|key|shadow|swapped|exchanged)\//.test(e.path))).toEqual([]);

    // Watching moved out of the engine: it holds no inotify watch at all…
    expect(inotifyInodes(process.pid)).toEqual([]);
    // …and the session's watcher (as the session's uid, not root) watches only directories of the session root.
    const pids = watcherPids();
    expect(pids.length).toBeGreaterThan(0);
    const inside = dirInodes(root);
    const watched = pids.flatMap((p) => inotifyInodes(p));
    expect(watched.length).toBeGreaterThan(0);
    expect(watched.filter((ino) => !inside.has(ino))).toEqual([]);
    if (process.getuid?.() === 0) {
      const sessionUid = fs.statSync(root).uid;
      for (const p of pids) expect(fs.readFileSync(`/proc/${p}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\t${sessionUid}\\t`, 'm'));
    }
    // …in the session's memory and pids groups, where there are (sandbox/jail-start.ts).
    const groups = (te.engine.services.sessions as unknown as { get(id: string): { jailGroups: { procs: Array<string | undefined> } } }).get(id).jailGroups;
    for (const procs of groups.procs) if (procs) for (const p of pids) expect(fs.readFileSync(procs, 'utf8').split('\n')).toContain(String(p));
    await tenant.browsers.deleteByID(id);
  });
});

describe('the per-session watch budget', () => {
  it('refuses a tree past the budget with a clear error and a log line; smaller trees and other tenants carry on', async () => {
    const a = (await tenant.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
    const b = (await other.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
    await sh(tenant, a, `perl -e 'for my $t ("big", "small") { mkdir "/tmp/$t"; mkdir "/tmp/$t/d$_" for 1 .. ($t eq "big" ? 200 : 20) }'`);

    // Over the budget: refused, with the budget named, and the session's log says so.
    const refused = await tenant.browsers.fs.watch.start(a, { path: '/tmp/big', recursive: true }).then(
      () => undefined,
      (err: { status?: number; error?: { code?: string; message?: string } }) => err,
    );
    expect(refused?.status).toBe(409);
    expect(refused?.error?.code).toBe('watch_limit');
    expect(refused?.error?.message).toContain(`${BUDGET}`);
    const log: string[] = [];
    for await (const e of await tenant.browsers.logs.stream(a, { source: 'supervisor', supervisor_process: 'session', follow: false })) log.push(e.message);
    expect(log.some((l) => l.includes('/tmp/big') && l.includes(`watch budget of ${BUDGET}`))).toBe(true);
    // …and its telemetry, like every other limit.
    const events = (await (
      await te.api(`/browsers/${a}/telemetry/events?since=30m&limit=100&type=system_limit_reached`, { headers: { Authorization: `Bearer ${tenantKey}` } })
    ).json()) as Array<{
      event: { data: Record<string, unknown> };
    }>;
    expect(events.map((e) => e.event.data)).toContainEqual({ resource: 'fs_watch_dirs', scope: 'session', limit: BUDGET });
    // The refused watch was the session's only one: its watcher process is gone (none is left running).
    await waitFor(() => watcherPids().length === 0);

    // Control: the same session's tree under the budget is watched fully (a change deep in it arrives).
    const { watch_id: small } = await tenant.browsers.fs.watch.start(a, { path: '/tmp/small', recursive: true });
    const ws = await collect(tenant, a, small!);
    await sh(tenant, a, 'echo x > /tmp/small/d20/deep.txt');
    await waitFor(() => ws.seen.some((e) => e.type === 'CREATE' && e.path === '/tmp/small/d20/deep.txt'));

    // Another tenant's session watches and answers as before.
    await other.browsers.fs.createDirectory(b, { path: '/tmp/mine/sub' });
    const { watch_id: theirs } = await other.browsers.fs.watch.start(b, { path: '/tmp/mine', recursive: true });
    const wb = await collect(other, b, theirs!);
    await other.browsers.fs.writeFile(b, 'hello', { path: '/tmp/mine/sub/f.txt' });
    await waitFor(() => wb.seen.some((e) => e.type === 'CREATE' && e.path === '/tmp/mine/sub/f.txt'));
    expect((await other.browsers.fs.listFiles(b, { path: '/tmp/mine/sub' })).map((f) => f.name)).toEqual(['f.txt']);

    // A watched tree growing past the budget ends its watch (the stream closes) and says so in the log.
    await sh(tenant, a, `perl -e 'mkdir "/tmp/small/more$_" for 1 .. ${BUDGET}'`);
    await ws.ended;
    const after: string[] = [];
    for await (const e of await tenant.browsers.logs.stream(a, { source: 'supervisor', supervisor_process: 'session', follow: false })) after.push(e.message);
    expect(after.some((l) => l.includes('/tmp/small') && l.includes('grew past'))).toBe(true);
    // The other tenant's watch is still live.
    await other.browsers.fs.writeFile(b, 'again', { path: '/tmp/mine/g.txt' });
    await waitFor(() => wb.seen.some((e) => e.type === 'CREATE' && e.path === '/tmp/mine/g.txt'));
    wb.stop();
    await wb.ended;
  });
});
