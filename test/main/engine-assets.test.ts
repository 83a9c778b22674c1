/**
 * The desktop bundle carries the engine's child-process scripts. `electron-vite build` into a
 * temp outDir must produce `main/engine-assets/` with every file runtime/assets.ts declares,
 * identical to its source; and an engine started with `assetsRoot` pointing at that built
 * directory (outside the source tree) must run a Playwright execution and a sandboxed session
 * process against a real headless Chromium — the children visibly started from the built copy
 * (the child's script path, or the sandbox's bind-mount sources in /proc/self/mountinfo).
 * An assets root without the scripts refuses to start, so the option is really what is used.
 * Run as root, the build's temp dir (0700) is out of reach of the jails' unprivileged users: the
 * jails then bind copies of the built files from /run/browserdeck-jail-visible (jail-visible.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { ENGINE_ASSETS } from '../../src/engine/runtime/assets.js';
import { findBwrap } from '../../src/engine/runtime/sandbox/bwrap.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let outDir: string;
let assetsRoot: string;
let te: TestEngine | undefined;

beforeAll(async () => {
  outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-build-'));
  await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/electron-vite'), ['build', '--outDir', outDir], { cwd: ROOT, maxBuffer: 16 << 20 });
  assetsRoot = path.join(outDir, 'main', 'engine-assets');
}, 600_000);

afterAll(async () => {
  await te?.stop();
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
});

const text = (b64?: string) => Buffer.from(b64 ?? '', 'base64').toString('utf8');
/** Where a jail's bind of an asset comes from: the built file, or its copy when root's jail users cannot reach it. */
const jailUsers = process.getuid?.() === 0;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const boundFrom = (asset: string, inside: string) =>
  jailUsers
    ? new RegExp(`(?:/run)?/browserdeck-jail-visible/${process.pid}/[0-9a-f]{16}/${escape(path.basename(asset))} ${escape(inside)}`)
    : new RegExp(`${escape(path.join(assetsRoot, asset))} ${escape(inside)}`);

describe('engine assets in the desktop bundle', () => {
  it('electron-vite build copies every declared asset, unchanged, next to the main bundle', async () => {
    await fs.access(path.join(outDir, 'main', 'index.js'));
    expect(ENGINE_ASSETS.length).toBeGreaterThan(0);
    for (const name of ENGINE_ASSETS) {
      const built = await fs.readFile(path.join(assetsRoot, name), 'utf8');
      expect(built, name).toBe(await fs.readFile(path.join(ROOT, 'src/engine/runtime', name), 'utf8'));
    }
  });

  it('refuses to start when the assets root lacks the scripts', async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-noassets-'));
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-'));
    const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, assetsRoot: empty });
    try {
      await expect(engine.start()).rejects.toThrow(/engine assets missing: .*code-runner-child\.mjs/);
    } finally {
      await engine.stop();
      await fs.rm(empty, { recursive: true, force: true });
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('runs Playwright code and a sandboxed process from the built assets', async () => {
    te = await startTestEngine({ assetsRoot });
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
    try {
      // The executor reports where it was started from (and, sandboxed, what is mounted where).
      const r = await te.client.browsers.playwright.execute(s.session_id, {
        code: `
          await page.setContent('<title>built assets</title>');
          let mounts = '';
          try { mounts = process.getBuiltinModule('fs').readFileSync('/proc/self/mountinfo', 'utf8'); } catch {}
          return { title: await page.title(), script: process.argv[1], mounts };
        `,
      });
      expect(r.success, r.error).toBe(true);
      const res = r.result as { title: string; script: string; mounts: string };
      expect(res.title).toBe('built assets');
      // Where bubblewrap works the executor runs inside it, its scripts bind-mounted from the assets root.
      const sandboxed = findBwrap() !== null;
      expect(res.script.startsWith('/run/browserdeck/')).toBe(sandboxed);
      if (sandboxed) expect(res.mounts).toMatch(boundFrom('code-runner', '/run/browserdeck/code-runner'));
      else expect(res.script).toBe(path.join(assetsRoot, 'code-runner/code-runner-child.mjs'));

      // A session process reaches its browser through the CDP forwarder (cdp-exec.mjs) when sandboxed.
      const p = await te.client.browsers.process.exec(s.session_id, {
        command: 'sh',
        args: ['-c', 'curl -s "$CDP_URL/json/version"; echo; cat /proc/self/mountinfo 2>/dev/null || true'],
      });
      expect(p.exit_code, text(p.stderr_b64)).toBe(0);
      const out = text(p.stdout_b64);
      expect(out).toMatch(/"webSocketDebuggerUrl"/);
      if (sandboxed) {
        expect(out).toMatch(boundFrom('sandbox/cdp-exec.mjs', '/run/browserdeck/cdp-exec.mjs'));
        expect(out).toMatch(boundFrom('sandbox/cdp-forwarder.mjs', '/run/browserdeck/cdp-forwarder.mjs'));
      }
    } finally {
      await te.client.browsers.deleteByID(s.session_id).catch(() => {});
    }
  });
});
