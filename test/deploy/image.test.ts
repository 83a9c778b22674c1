/**
 * The OCI image and the single-node Kubernetes manifest, for real (issue 31): `npm run image`
 * builds the image with podman, `podman kube play deploy/kubernetes/browserdeck.yaml` runs it
 * (on a test port and volume of its own), /healthz says the session jail and Chromium's own
 * sandbox are on inside the container, and the official SDK and Playwright drive a session
 * through it. Everything the test started is removed afterwards, also on failure; the images
 * stay (they are the next build's cache).
 *
 * Skipped, loudly, where podman cannot run (`.ci/run` installs it: scripts/bootstrap/container-tools.mjs).
 *
 * @own-process builds an image and runs a pod for minutes; its timeouts are its own.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Health } from '../../src/shared/wire/health.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Not the engine's default 8420, so a developer's engine (or pod) on this machine does not clash. */
const PORT = 18_420;
const NAME = 'browserdeck-imagetest';
const VOLUME = `${NAME}-data`;
/** `podman kube play` (4.3) names a Deployment's pod `<name>-pod-0` and its containers `<pod>-<container>`. */
const CONTAINER = `${NAME}-pod-0-engine`;
const BUILD_MS = 10 * 60_000;
/** podman's own scratch files go where podman keeps them, not into the test run's private TMPDIR. */
const PODMAN_ENV = { ...process.env, TMPDIR: '/var/tmp' };
const READY_MS = 3 * 60_000;

function podmanSkipReason(): string | null {
  const info = spawnSync('podman', ['info', '--format', '{{.Host.OCIRuntime.Name}}'], { encoding: 'utf8', timeout: 60_000 });
  if (info.error) return `podman is not installed (${info.error.message})`;
  if (info.status !== 0) return `podman info fails: ${(info.stderr || '').trim().split('\n').pop()}`;
  return null;
}

const skipReason = process.platform === 'linux' ? podmanSkipReason() : `podman runs on Linux, not ${process.platform}`;
if (skipReason) {
  console.warn(`\n!!! SKIPPED test/deploy/image.test.ts: ${skipReason}. The OCI image and the Kubernetes manifest are NOT tested here.\n`);
}

/** Runs a command to completion with its output captured; resolves with the exit code and output. */
function runCaptured(cmd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: PODMAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function podman(...args: string[]): string {
  return execFileSync('podman', args, { encoding: 'utf8', env: PODMAN_ENV, timeout: 120_000 });
}

/** The single-node manifest with the test's port, names and volume (nothing else changed). */
function testManifest(): string {
  const text = fs.readFileSync(path.join(root, 'deploy/kubernetes/browserdeck.yaml'), 'utf8');
  const out = text
    .replace(/hostPort: 8420\b/, `hostPort: ${PORT}`)
    .replace(/value: http:\/\/127\.0\.0\.1:8420\b/, `value: http://127.0.0.1:${PORT}`)
    .replace(/(name|claimName): browserdeck-data\b/g, `$1: ${VOLUME}`)
    .replace(/^( {2}name:) browserdeck$/m, `$1 ${NAME}`);
  expect(out).toContain(`hostPort: ${PORT}`);
  expect(out).toContain(`claimName: ${VOLUME}`);
  expect(out).toContain(`value: http://127.0.0.1:${PORT}`);
  expect(out).toContain(`name: ${NAME}\n`);
  return out;
}

async function healthz(): Promise<Health | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${PORT}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? ((await res.json()) as Health) : null;
  } catch {
    return null;
  }
}

describe.skipIf(skipReason !== null)(`the OCI image under podman kube play${skipReason ? ` (SKIPPED: ${skipReason})` : ''}`, () => {
  let dir: string;
  let manifest: string;
  let played = false;
  const timings: Record<string, number> = {};

  beforeAll(
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browserdeck-image-test-'));
      manifest = path.join(dir, 'browserdeck.yaml');
      fs.writeFileSync(manifest, testManifest());
      // Leftovers of an interrupted run would make `kube play` fail on existing names.
      spawnSync('podman', ['kube', 'down', manifest], { env: PODMAN_ENV, stdio: 'ignore' });
      spawnSync('podman', ['volume', 'rm', '--force', VOLUME], { env: PODMAN_ENV, stdio: 'ignore' });

      let t0 = performance.now();
      const build = await runCaptured(process.execPath, ['scripts/image/build-image.mjs'], BUILD_MS);
      timings.build_s = (performance.now() - t0) / 1000;
      if (build.code !== 0) throw new Error(`npm run image failed (exit ${build.code}):\n${build.output.slice(-4000)}`);

      t0 = performance.now();
      podman('kube', 'play', manifest);
      played = true;
      let health: Health | null = null;
      const deadline = Date.now() + READY_MS;
      while (!(health = await healthz()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      timings.ready_s = (performance.now() - t0) / 1000;
      if (!health) throw new Error(`/healthz did not answer within ${READY_MS / 1000} s; the engine's log:\n${podman('logs', CONTAINER).slice(-4000)}`);
    },
    BUILD_MS + READY_MS + 60_000,
  );

  afterAll(async () => {
    console.log(`[image test] build ${timings.build_s?.toFixed(1)} s, kube play to /healthz ${timings.ready_s?.toFixed(1)} s`);
    if (played) spawnSync('podman', ['kube', 'down', manifest], { env: PODMAN_ENV, stdio: 'inherit', timeout: 120_000 });
    spawnSync('podman', ['volume', 'rm', '--force', VOLUME], { env: PODMAN_ENV, stdio: 'inherit', timeout: 60_000 });
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('runs the engine as uid 1000 with no capabilities, and /healthz says the jail is on', async () => {
    const health = await healthz();
    expect(health).toMatchObject({ ok: true, jail: { enabled: true }, store: { kind: 'sqlite', ok: true } });
    // The entrypoint dropped everything after lifting the /proc masks (PID 1 is tini).
    const status = podman('exec', CONTAINER, 'sh', '-c', 'cat /proc/$(pgrep -o -x node)/status');
    expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^CapBnd:\s+0+$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it('serves a session to the official SDK and Playwright, with Chromium sandboxed inside the jail', async () => {
    const apiKey = podman('exec', '--user', '1000', CONTAINER, 'cat', '/var/lib/browserdeck/admin-api-key').trim();
    const client = new Kernel({ apiKey, baseURL: `http://127.0.0.1:${PORT}`, maxRetries: 0 });
    const session = await client.browsers.create({ headless: true });
    try {
      const browser = await chromium.connectOverCDP(session.cdp_ws_url);
      try {
        const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
        await page.goto('data:text/html,<title>inside the container</title><p>hello</p>');
        expect(await page.title()).toBe('inside the container');
      } finally {
        await browser.close();
      }
      expect(await healthz()).toMatchObject({ jail: { enabled: true, chromium_sandbox: 'on' } });
    } finally {
      await client.browsers.deleteByID(session.session_id);
    }
    const running: string[] = [];
    for await (const b of client.browsers.list()) running.push(b.session_id);
    expect(running).not.toContain(session.session_id);
  });

  it('serves the operator console', async () => {
    const res = await fetch(`http://127.0.0.1:${PORT}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<div id="root">/);
  });
});
