/**
 * Issue 25 rows 6 and 7 without bubblewrap (BROWSERDECK_NO_BWRAP=1, as on a host without it;
 * `--insecure-no-jail` for the browser): the session's watcher then runs as a plain child, still
 * outside the engine process, walking by descriptors with O_NOFOLLOW and within the same
 * per-session budget. Links to `/` and to the data dir planted in a watched dir (by the test,
 * on the host: unjailed processes would write the host's own paths) lead nowhere: no event
 * names the host files touched afterwards, the engine holds no inotify watch, and the watcher
 * none outside the session root; a tree past the budget is refused with 409 `watch_limit`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { collect, dirInodes, inotifyInodes, waitFor, watcherPids } from './fs-watch-helpers.js';

const BUDGET = 20;
let te: TestEngine;
const probes: string[] = [];

beforeAll(async () => {
  process.env.BROWSERDECK_NO_BWRAP = '1';
  te = await startTestEngine({ insecureNoJail: true, fsWatchMaxDirs: BUDGET });
}, 60_000);

afterAll(async () => {
  await te?.stop();
  delete process.env.BROWSERDECK_NO_BWRAP;
  for (const p of probes) fs.rmSync(p, { recursive: true, force: true });
});

describe('fs watches without the jail', () => {
  it('refuse links and keep to the budget, outside the engine process', async () => {
    const id = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
    const root = (te.engine.services.sessions as unknown as { get(id: string): { dirs: { root: string } } }).get(id).dirs.root;
    const tag = randomUUID().slice(0, 8);
    await te.client.browsers.fs.createDirectory(id, { path: '/w/inside' });
    const { watch_id } = await te.client.browsers.fs.watch.start(id, { path: '/w', recursive: true });
    const w = await collect(te.client, id, watch_id!);
    expect(inotifyInodes(process.pid)).toEqual([]);

    fs.symlinkSync('/', path.join(root, 'w/root'));
    fs.symlinkSync(te.dataDir, path.join(root, 'w/data'));
    await waitFor(() => ['root', 'data'].every((n) => w.seen.some((e) => e.type === 'CREATE' && e.path === `/w/${n}`)));
    const hostFiles = [path.join(te.dataDir, `host-probe-${tag}`), path.join(os.tmpdir(), `host-probe-${tag}.txt`)];
    probes.push(...hostFiles);
    for (const f of hostFiles) fs.writeFileSync(f, 'host');
    // Control: a change inside is reported.
    await te.client.browsers.fs.writeFile(id, 'inside', { path: '/w/inside/control.txt' });
    await waitFor(() => w.seen.some((e) => e.type === 'CREATE' && e.path === '/w/inside/control.txt'));
    w.stop();
    await w.ended;
    expect(w.seen.filter((e) => e.path.includes(tag) || !e.path.startsWith('/w/') || /^\/w\/(root|data)\//.test(e.path))).toEqual([]);
    expect(inotifyInodes(process.pid)).toEqual([]);
    const watched = watcherPids().flatMap((p) => inotifyInodes(p));
    expect(watched.length).toBeGreaterThan(0);
    const inside = dirInodes(root);
    expect(watched.filter((ino) => !inside.has(ino))).toEqual([]);

    // The budget: 30 directories do not fit in 20 (the watch above holds 2 of them).
    for (let i = 0; i < 30; i++) fs.mkdirSync(path.join(root, 'big', `d${i}`), { recursive: true });
    const refused = await te.client.browsers.fs.watch.start(id, { path: '/big', recursive: true }).then(
      () => undefined,
      (err: { status?: number; error?: { code?: string } }) => err,
    );
    expect(refused?.status).toBe(409);
    expect(refused?.error?.code).toBe('watch_limit');
    // Control: a tree that fits is watched.
    fs.mkdirSync(path.join(root, 'fits/a/b'), { recursive: true });
    const { watch_id: fits } = await te.client.browsers.fs.watch.start(id, { path: '/fits', recursive: true });
    const wf = await collect(te.client, id, fits!);
    fs.writeFileSync(path.join(root, 'fits/a/b/deep.txt'), 'x');
    await waitFor(() => wf.seen.some((e) => e.type === 'CREATE' && e.path === '/fits/a/b/deep.txt'));
    wf.stop();
    await wf.ended;
    // /healthz says what is in force.
    const health = (await (await fetch(`${te.url}/healthz`)).json()) as { limits: { fs_watch: unknown } };
    expect(health.limits.fs_watch).toEqual({ max_dirs_per_session: BUDGET, jailed: false });
  });
});
