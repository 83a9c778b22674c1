/**
 * The V8 code cache of playwright-core's bundles (runtime/code-runner/code-cache.ts,
 * bundle-code-cache.mjs): made once by a child with the runners' flags, taken by a runner's load,
 * refused by V8 when it does not fit (other flags, bytes that are not a cache) without breaking the
 * load, and kept only in a directory nobody else can write. That a jailed runner can read but not
 * change it is in isolation-code.test.ts.
 *
 * @own-process the cache's state is kept once per process, and these tests reset it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { playwrightCodeCache, playwrightCodeCacheStatus, resetPlaywrightCodeCache } from '../../../src/engine/runtime/code-runner/code-cache.js';
import { NODE_FLAGS } from '../../../src/engine/runtime/code-runner/runner-launch.js';
import { waitFor } from '../../helpers/chromium-web.js';

const pwDir = path.dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
const bundleCache = new URL('../../../src/engine/runtime/code-runner/bundle-code-cache.mjs', import.meta.url).href;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-code-cache-'));
afterAll(() => {
  resetPlaywrightCodeCache();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Loads playwright-core in a child with `flags`, through the cache in `dir`; answers what V8 made of it. */
async function loadIn(dir: string, flags: readonly string[] = NODE_FLAGS): Promise<{ outcome: string; connect: string }> {
  const script = `
import { withBundleCache } from ${JSON.stringify(bundleCache)};
import { createRequire } from 'node:module';
const r = withBundleCache(${JSON.stringify(pwDir)}, ${JSON.stringify(dir)}, () => createRequire(${JSON.stringify(pwDir + '/')})('./index.js'));
console.log(JSON.stringify({ outcome: r.outcome, connect: typeof r.value.chromium.connectOverCDP }));`;
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, '--input-type=module', '-e', script], { env: { PATH: process.env.PATH } });
  return JSON.parse(stdout);
}

async function made(env: NodeJS.ProcessEnv): Promise<string> {
  resetPlaywrightCodeCache();
  expect(playwrightCodeCache(pwDir, NODE_FLAGS, env)).toBeNull(); // the first ask starts it
  await waitFor(() => playwrightCodeCacheStatus()?.state !== 'making', 60_000, 'the code cache');
  expect(playwrightCodeCacheStatus()).toMatchObject({ state: 'ready' });
  const dir = playwrightCodeCache(pwDir, NODE_FLAGS, env)!;
  expect(dir.startsWith(env.BROWSERDECK_CODE_CACHE_DIR!)).toBe(true);
  return dir;
}

describe("playwright-core's V8 code cache", () => {
  it("is made by a child of the runners' Node, private to the engine user, and a runner with the same flags takes it", async () => {
    const env = { BROWSERDECK_CODE_CACHE_DIR: path.join(root, 'a') };
    const dir = await made(env);
    expect(fs.readdirSync(dir).sort()).toEqual(['coreBundle.js.v8', 'utilsBundle.js.v8']);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(await loadIn(dir)).toEqual({ outcome: 'used', connect: 'function' });
    // Other V8 flags: V8 refuses the data and the bundles compile from source.
    expect(await loadIn(dir, [])).toEqual({ outcome: 'rejected', connect: 'function' });
  });

  it("sweeps other versions' caches unused for a day, and nothing else beside them", async () => {
    const parent = path.join(root, 'sweep');
    fs.mkdirSync(parent, { mode: 0o700 });
    const old = new Date(Date.now() - 2 * 24 * 3600_000);
    const oldCache = path.join(parent, 'a'.repeat(24));
    const recentCache = path.join(parent, 'b'.repeat(24));
    const notOurs = path.join(parent, 'notes.txt');
    for (const d of [oldCache, recentCache]) fs.mkdirSync(d);
    fs.writeFileSync(notOurs, 'kept');
    fs.utimesSync(oldCache, old, old);
    fs.utimesSync(notOurs, old, old);
    await made({ BROWSERDECK_CODE_CACHE_DIR: parent });
    expect(fs.existsSync(oldCache)).toBe(false);
    expect(fs.existsSync(recentCache)).toBe(true);
    expect(fs.readFileSync(notOurs, 'utf8')).toBe('kept');
  });

  it('bytes that are not a cache are refused by V8, and playwright-core still loads', async () => {
    const dir = await made({ BROWSERDECK_CODE_CACHE_DIR: path.join(root, 'b') });
    for (const f of fs.readdirSync(dir)) fs.writeFileSync(path.join(dir, f), Buffer.alloc(4096, 7));
    expect(await loadIn(dir)).toEqual({ outcome: 'rejected', connect: 'function' });
  });

  it('is not used from a directory others can write', async () => {
    const env = { BROWSERDECK_CODE_CACHE_DIR: path.join(root, 'c') };
    const dir = await made(env);
    fs.chmodSync(dir, 0o777);
    resetPlaywrightCodeCache();
    expect(playwrightCodeCache(pwDir, NODE_FLAGS, env)).toBeNull();
    expect(playwrightCodeCacheStatus()).toMatchObject({ state: 'failed', error: expect.stringContaining('only this user can write') });
  });

  it("a directory that cannot be made leaves the runners without it (and does not hang: Node's recursive mkdir loops under /proc)", () => {
    resetPlaywrightCodeCache();
    expect(playwrightCodeCache(pwDir, NODE_FLAGS, { BROWSERDECK_CODE_CACHE_DIR: '/proc/browserdeck-code-cache' })).toBeNull();
    expect(playwrightCodeCacheStatus()).toMatchObject({ state: 'failed' });
  });
});
