/**
 * Playwright code (`/playwright/execute`) is isolated: sandboxed with bwrap it drives its own
 * session's page, finds its own browser at 127.0.0.1:9222 (browser id matching the session's)
 * and sees its session's files at `/`, while another session's DevTools port, its own real
 * DevTools port, the engine and other loopback services are refused (each shown reachable from
 * the host first), and the engine's data dir (admin key), another session's files and profile
 * and the engine's source tree are not there. Without bwrap (`BROWSERDECK_NO_BWRAP=1`) the
 * executor runs under Node's permission model: it still drives the page but cannot read the
 * admin key or another session's files.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { playwrightCodeCacheStatus } from '../../../src/engine/runtime/code-runner/code-cache.js';
import { waitFor } from '../../helpers/chromium-web.js';
import { assertReachableFromHost, handleOf, startIsolationFixture, type IsolationFixture } from './isolation-helpers.js';

let f: IsolationFixture;
const sandboxed = Boolean(await usableBwrap());
const repoFile = fileURLToPath(new URL('../../../package.json', import.meta.url));

beforeAll(async () => {
  f = await startIsolationFixture();
  await f.te.client.browsers.fs.writeFile(f.a, 'a note', { path: '/work/a-note.txt' });
  await f.te.client.browsers.fs.writeFile(f.b, 'b secret', { path: '/b-secret.txt' });
});
afterAll(async () => {
  await f?.hostService.close();
  await f?.te.stop();
});

const run = async (code: string) => {
  const r = await f.te.client.browsers.playwright.execute(f.a, { code, timeout_sec: 120 });
  expect(r.success, `${r.error}\n${r.stderr}`).toBe(true);
  return r.result as Record<string, unknown>;
};

/** Code that tries to read each host path and reports the error code (or the content). */
const READ = (paths: Record<string, string>) => `
const fs = await import('node:fs');
const out = {};
for (const [name, p] of Object.entries(${JSON.stringify(paths)})) {
  try { out[name] = 'read ' + fs.readFileSync(p, 'utf8'); } catch (err) { out[name] = 'error ' + err.code; }
}
return out;`;

const secretPaths = () => ({
  adminKey: path.join(f.te.dataDir, 'admin-api-key'),
  otherFile: path.join(handleOf(f.te, f.b).dirs.root, 'b-secret.txt'),
  otherProfile: path.join(handleOf(f.te, f.b).dirs.userData, 'Local State'),
});

describe.runIf(sandboxed)('sandboxed Playwright code', () => {
  it('drives its own session page and finds its own browser at 127.0.0.1:9222', async () => {
    const r = await run(`
await page.setContent('<title>own</title>');
const version = await (await fetch('http://127.0.0.1:9222/json/version')).json();
return { title: await page.title(), ws: version.webSocketDebuggerUrl };`);
    expect(r.title).toBe('own');
    expect(r.ws).toBe(`ws://127.0.0.1:9222${f.browserPath(f.a)}`);
  });

  it('cannot reach other sessions, the engine, or other loopback services', async () => {
    const urls = f.forbidden();
    await assertReachableFromHost(urls);
    const r = await run(`
const out = {};
for (const [name, url] of Object.entries(${JSON.stringify(urls)})) {
  try { out[name] = 'status ' + (await fetch(url, { signal: AbortSignal.timeout(30000) })).status; }
  catch (err) { out[name] = 'error ' + (err.cause?.code ?? err.message); }
}
return out;`);
    for (const name of Object.keys(urls)) expect(r[name], name).toBe('error ECONNREFUSED');
  });

  it('sees its own session files at / and no host files', async () => {
    const r = await run(READ({ ...secretPaths(), own: '/work/a-note.txt', repo: repoFile, dataDirExists: f.te.dataDir }));
    expect(r.own).toBe('read a note');
    for (const name of ['adminKey', 'otherFile', 'otherProfile', 'repo', 'dataDirExists']) expect(r[name], name).toBe('error ENOENT');
    const env = await run('return Object.keys(process.env).sort()');
    expect(env).toEqual(expect.not.arrayContaining([expect.stringMatching(/KEY|SECRET|TOKEN|DATABASE/)]));
  });

  // The cache is code every later runner of every session hands to V8 (code-cache.ts): one tenant
  // writing it would run code in the others'.
  it("reads the engine's V8 code cache for playwright-core but can change nothing in it", async () => {
    await run('return 1'); // a runner start makes the cache, once per engine process
    await waitFor(() => playwrightCodeCacheStatus()?.state !== 'making', 60_000);
    expect(playwrightCodeCacheStatus()).toMatchObject({ state: 'ready' });
    // A new executor starts a new runner, with the cache bound.
    const res = await f.te.api(`/browsers/${f.a}/playwright/execute`, {
      method: 'POST',
      json: {
        executor: 'cache-reader',
        timeout_sec: 120,
        code: `
const fs = await import('node:fs');
const dir = '/run/browserdeck/v8-code-cache';
const tryIt = (fn) => { try { fn(); return 'done'; } catch (err) { return err.code; } };
return {
  files: fs.readdirSync(dir).sort(),
  size: fs.statSync(dir + '/coreBundle.js.v8').size,
  append: tryIt(() => fs.appendFileSync(dir + '/coreBundle.js.v8', 'x')),
  create: tryIt(() => fs.writeFileSync(dir + '/evil.v8', 'x')),
  remove: tryIt(() => fs.rmSync(dir + '/utilsBundle.js.v8')),
  drivesPage: typeof page.goto,
  // The runner's own load, done again: V8 in the jail takes the cache (same binary, same flags).
  reload: await (async () => {
    const { createRequire } = await import('node:module');
    const { withBundleCache } = await import('/run/browserdeck/code-runner/bundle-code-cache.mjs');
    const pw = '/run/browserdeck/node_modules/playwright-core';
    const req = createRequire(pw + '/');
    for (const k of Object.keys(req.cache)) if (k.startsWith(pw)) delete req.cache[k];
    return withBundleCache(pw, dir, () => req('./index.js')).outcome;
  })(),
};`,
      },
    });
    const r = (await res.json()) as { success: boolean; error?: string; result: Record<string, unknown> };
    expect(r.success, r.error).toBe(true);
    expect(r.result).toMatchObject({ files: ['coreBundle.js.v8', 'utilsBundle.js.v8'], drivesPage: 'function', reload: 'used' });
    expect(r.result.size).toBeGreaterThan(0);
    // Refused by the file's owner (root) or by the read-only mount, whichever the kernel checks first.
    for (const op of ['append', 'create', 'remove']) expect(['EROFS', 'EACCES'], op).toContain(r.result[op]);
  });
});

describe('Playwright code without bwrap (BROWSERDECK_NO_BWRAP=1)', () => {
  it('drives its page but cannot read the admin key or other sessions (Node permission model)', async () => {
    process.env.BROWSERDECK_NO_BWRAP = '1';
    try {
      // Executors are long-lived: restart the default one so its next process starts without bwrap.
      expect((await f.te.api(`/browsers/${f.a}/playwright/executors/default`, { method: 'DELETE' })).status).toBe(204);
      const r = await run(
        `await page.setContent('<title>fallback</title>'); const files = await (async () => { ${READ(secretPaths())} })(); return { title: await page.title(), ...files };`,
      );
      expect(r.title).toBe('fallback');
      for (const name of Object.keys(secretPaths())) expect(r[name], name).toBe('error ERR_ACCESS_DENIED');
    } finally {
      delete process.env.BROWSERDECK_NO_BWRAP;
      await f.te.api(`/browsers/${f.a}/playwright/executors/default`, { method: 'DELETE' });
    }
  });
});
