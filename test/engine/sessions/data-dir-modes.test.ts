/**
 * A root engine's data dir is searchable by others (o+x: its jails' unprivileged bubblewrap must
 * reach their mounts, runtime/sandbox/jail-user.ts), so nothing the engine keeps there may be
 * listable or readable by other host users: after a session with a recording and a saved profile,
 * no entry outside the sessions' own dirs that others can reach lets them read or list it.
 * Only meaningful when the tests run as root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { pollUntil } from '../../helpers/poll-until.js';

const asRoot = process.getuid?.() === 0 && Boolean(await usableBwrap());
let te: TestEngine;
beforeAll(async () => {
  if (asRoot) te = await startTestEngine();
});
afterAll(async () => {
  await te?.stop();
});

/** Every path under `dir` with its mode, not descending into `skip`. */
function walk(dir: string, skip: (p: string) => boolean, out: Array<[string, fs.Stats]> = []): Array<[string, fs.Stats]> {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    out.push([p, st]);
    if (st.isDirectory() && !skip(p)) walk(p, skip, out);
  }
  return out;
}

it.runIf(asRoot)(
  'nothing under the data dir is listable or readable by other host users',
  async () => {
    await te.client.profiles.create({ name: 'modes' });
    const s = await te.client.browsers.create({ headless: true, start_url: 'data:text/html,<b>x</b>', profile: { name: 'modes', save_changes: true } });
    const r = await te.client.browsers.replays.start(s.session_id, {});
    const replays = path.join(te.dataDir, 'replays', s.session_id);
    await pollUntil(
      'a capture file',
      async () => fs.readdirSync(replays).length,
      (n) => n > 0,
    );
    await te.client.browsers.replays.stop(r.replay_id, { id: s.session_id });
    await te.client.browsers.deleteByID(s.session_id);
    const profiles = path.join(te.dataDir, 'profiles');
    await pollUntil(
      'the profile saved and the session dir gone',
      async () => fs.existsSync(profiles) && !fs.existsSync(path.join(te.dataDir, 'sessions', s.session_id)),
      Boolean,
    );
    const sessions = path.join(te.dataDir, 'sessions');
    const entries = walk(te.dataDir, (p) => path.dirname(p) === sessions);
    expect(entries.map(([p]) => p)).toContain(path.join(replays, `${r.replay_id}.mp4`));
    const modes = new Map(entries.map(([p, st]) => [p, st.mode]));
    // Another user reaches an entry when every directory above it, up to the data dir, lets others search.
    const reachable = (p: string): boolean => {
      for (let d = path.dirname(p); d !== te.dataDir; d = path.dirname(d)) if (!((modes.get(d) ?? 0) & 0o001)) return false;
      return true;
    };
    for (const [p, st] of entries) {
      if (st.isSymbolicLink() || !reachable(p)) continue;
      expect(st.mode & 0o006, `${p} ${(st.mode & 0o777).toString(8)}`).toBe(0);
    }
    // The recordings of a session: its ffmpeg's (the session's uid) and nobody else's.
    expect(fs.statSync(replays).mode & 0o077).toBe(0);
  },
  90_000,
);
