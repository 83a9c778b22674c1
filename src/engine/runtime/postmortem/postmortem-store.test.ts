import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { PostmortemStore, type PostmortemOptions } from './postmortem-store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function store(now = () => Date.now()): Promise<{ s: PostmortemStore; dir: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-pm-'));
  dirs.push(dir);
  const deps = {
    telemetry: { get: () => ({ envelopes: () => [{ seq: 1 }] }) },
    serviceLogs: { snapshot: () => ({}) },
    processes: { takeEnded: () => [] },
  } as unknown as Pick<PostmortemOptions, 'telemetry' | 'serviceLogs' | 'processes'>;
  const s = new PostmortemStore({ dataDir: dir, retentionMs: 3600_000, sweepIntervalMs: 3600_000, now, log: () => {}, ...deps });
  return { s, dir };
}

describe('PostmortemStore.read', () => {
  it('parses a record once while someone polls it, and again when its file changes', async () => {
    const { s, dir } = await store();
    await s.capture('sess1');
    const file = path.join(dir, 'postmortem', 'sess1.json.gz');
    const first = await s.read('sess1');
    expect(first?.telemetry).toEqual([{ seq: 1 }]);
    // Same file time, other bytes: a second read is served from what the first one parsed.
    const st = await fs.stat(file);
    await fs.writeFile(file, 'not gzip');
    await fs.utimes(file, st.atime, st.mtime);
    expect(await s.read('sess1')).toBe(first);
    // A newer file is read again.
    await fs.writeFile(file, zlib.gzipSync(JSON.stringify({ ...first, telemetry: [{ seq: 2 }] })));
    expect((await s.read('sess1'))?.telemetry).toEqual([{ seq: 2 }]);
    s.stop();
  });

  it('answers nothing past the retention, cached or not', async () => {
    let now = Date.now();
    const { s } = await store(() => now);
    await s.capture('sess2');
    expect(await s.read('sess2')).toBeDefined();
    now += 2 * 3600_000;
    expect(await s.read('sess2')).toBeUndefined();
    s.stop();
  });
});
