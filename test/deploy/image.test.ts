/**
 * The OCI image and the single-node Kubernetes manifest, for real (issue 31): `npm run image`
 * builds the image with podman, `podman kube play deploy/kubernetes/browserdeck.yaml` runs it
 * (on a test port and volume of its own), /healthz says the session jail and Chromium's own
 * sandbox are on inside the container, and the official SDK and Playwright drive a session
 * through it. Started without the privileges the jail needs, the image refuses to serve. Run as
 * the user-namespaced manifest (browserdeck-userns.yaml) sets it up — which kube play cannot
 * play — with podman's equivalent flags and the shipped seccomp profile, it jails sessions with
 * Chromium's sandbox on and no capability at all. Everything the test started is removed
 * afterwards, also on failure; the images stay (they are the next build's cache).
 *
 * Skipped, loudly, where podman cannot run (`.ci/run` installs it: scripts/bootstrap/container-tools.mjs).
 *
 * @own-process builds an image and runs a pod for minutes; its timeouts are its own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Health } from '../../src/shared/wire/health.js';
import { buildImages, PODMAN_ENV, podman, podmanSkipReason, root, runCaptured } from './podman.js';

/** Not the engine's default 8420, so a developer's engine (or pod) on this machine does not clash. */
const PORT = 18_420;
/** The user-namespaced run's port (the compose test in cluster.test.ts has 18421). */
const USERNS_PORT = 18_422;
const NAME = 'browserdeck-imagetest';
const IMAGE = `${process.env.BROWSERDECK_IMAGE || 'localhost/browserdeck'}:latest`;
const VOLUME = `${NAME}-data`;
/** `podman kube play` (4.3) names a Deployment's pod `<name>-pod-0` and its containers `<pod>-<container>`. */
const CONTAINER = `${NAME}-pod-0-engine`;
const BUILD_MS = 10 * 60_000;
const READY_MS = 3 * 60_000;

const skipReason = podmanSkipReason();
if (skipReason) {
  console.warn(`\n!!! SKIPPED test/deploy/image.test.ts: ${skipReason}. The OCI image and the Kubernetes manifest are NOT tested here.\n`);
}

/** The single-node manifest with the test's port, names and volume (nothing else changed). */
function testManifest(): string {
  const text = fs.readFileSync(path.join(root, 'deploy/kubernetes/browserdeck.yaml'), 'utf8');
  const out = text
    .replace(/hostPort: 8420\b/, `hostPort: ${PORT}`)
    .replace(/value: http:\/\/127\.0\.0\.1:8420\b/, `value: http://127.0.0.1:${PORT}`)
    .replace(/(name|claimName): browserdeck-data\b/g, `$1: ${VOLUME}`)
    .replace(/^( {2}name:) browserdeck$/m, `$1 ${NAME}`)
    .replace(/image: localhost\/browserdeck:latest/, `image: ${IMAGE}`);
  expect(out).toContain(`hostPort: ${PORT}`);
  expect(out).toContain(`claimName: ${VOLUME}`);
  expect(out).toContain(`value: http://127.0.0.1:${PORT}`);
  expect(out).toContain(`name: ${NAME}\n`);
  return out;
}

async function healthz(base = `http://127.0.0.1:${PORT}`): Promise<Health | null> {
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
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
  let built = '';

  beforeAll(
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browserdeck-image-test-'));
      manifest = path.join(dir, 'browserdeck.yaml');
      fs.writeFileSync(manifest, testManifest());
      // Leftovers of an interrupted run would make `kube play` fail on existing names.
      spawnSync('podman', ['kube', 'down', manifest], { env: PODMAN_ENV, stdio: 'ignore' });
      spawnSync('podman', ['volume', 'rm', '--force', VOLUME], { env: PODMAN_ENV, stdio: 'ignore' });

      let t0 = performance.now();
      built = await buildImages(['scripts/image/build-image.mjs'], BUILD_MS);
      timings.build_s = (performance.now() - t0) / 1000;

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
    console.log(`[image test] build ${timings.build_s?.toFixed(1)} s (${built}), kube play to /healthz ${timings.ready_s?.toFixed(1)} s`);
    spawnSync('podman', ['rm', '--force', '--volumes', `${NAME}-nojail`, `${NAME}-userns`, `${NAME}-native`], {
      env: PODMAN_ENV,
      stdio: 'ignore',
      timeout: 60_000,
    });
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
        // The engine (uid 1000) gave the jail a namespace Chromium takes for online (online-netns.ts, user mode).
        expect(await page.evaluate(() => navigator.onLine)).toBe(true);
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

  it('refuses to serve other machines where the jail cannot start (/proc masked, no SYS_ADMIN)', async () => {
    // The image as a runtime starts it by default: uid 1000 under the runtime's /proc masks.
    const r = await runCaptured('podman', ['run', '--rm', '--name', `${NAME}-nojail`, IMAGE], 180_000);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/refusing to listen on 0\.0\.0\.0 without the session jail \(.*Can't mount proc/);
  }, 200_000);

  it('loads its native modules: a PTY through node-pty and SQLite through better-sqlite3', async () => {
    // The image leaves out what these packages carry for other platforms and their build
    // sources (build-context.mjs, NOT_AT_RUN_TIME); this is what must still be there.
    const script = [
      "const pty = require('node-pty');",
      "const p = pty.spawn('/bin/echo', ['pty-ok'], {});",
      "let out = ''; p.onData((d) => (out += d));",
      "p.onExit(() => { const D = require('better-sqlite3');",
      "  console.log(JSON.stringify({ pty: out.trim(), sqlite: new D(':memory:').prepare('select 1 + 1 AS n').get().n })); });",
    ].join('\n');
    const r = await runCaptured('podman', ['run', '--rm', '--name', `${NAME}-native`, '--entrypoint', 'node', IMAGE, '-e', script], 120_000);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('{"pty":"pty-ok","sqlite":2}');
  }, 150_000);

  it('serves the operator console', async () => {
    const res = await fetch(`http://127.0.0.1:${PORT}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<div id="root">/);
  });

  it("runs as browserdeck-userns.yaml sets it up: own user namespace, no capability, the shipped seccomp profile, /proc unmasked — jail and Chromium's sandbox on", async () => {
    // What the manifest asks of Kubernetes, in podman's words (kube play ignores procMount):
    // hostUsers: false → a uid map; runAsUser 1000, drop ALL, allowPrivilegeEscalation: false →
    // --user, --cap-drop, no-new-privileges; procMount: Unmasked → unmask; the Localhost profile.
    const name = `${NAME}-userns`;
    const base = `http://127.0.0.1:${USERNS_PORT}`;
    podman(
      ...['run', '-d', '--name', name, '--user', '1000:1000', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'],
      ...['--security-opt', 'unmask=/proc/*', '--security-opt', `seccomp=${path.join(root, 'deploy/kubernetes/browserdeck-seccomp.json')}`],
      ...['--uidmap', '0:200000:65536', '--gidmap', '0:200000:65536', '-p', `127.0.0.1:${USERNS_PORT}:8420`, '-e', `BROWSERDECK_PUBLIC_URL=${base}`],
      IMAGE,
    );
    try {
      const deadline = Date.now() + READY_MS;
      while (!(await healthz(base)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
      if (!(await healthz(base))) throw new Error(`/healthz did not answer; the engine's log:\n${podman('logs', name).slice(-4000)}`);
      const status = podman('exec', name, 'sh', '-c', 'cat /proc/$(pgrep -o -x node)/status /proc/self/uid_map');
      expect(status).toMatch(/^CapEff:\s+0+$/m);
      expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
      expect(status).toMatch(/^Seccomp:\s+2$/m);
      expect(status).toMatch(/^\s*0\s+200000\s+65536$/m);
      const apiKey = podman('exec', name, 'cat', '/var/lib/browserdeck/admin-api-key').trim();
      const client = new Kernel({ apiKey, baseURL: base, maxRetries: 0 });
      const session = await client.browsers.create({ headless: true });
      const browser = await chromium.connectOverCDP(session.cdp_ws_url);
      try {
        const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
        await page.goto('data:text/html,<title>no capability</title>');
        expect(await page.title()).toBe('no capability');
        // The online namespace is made there too (user mode under the shipped seccomp profile).
        expect(await page.evaluate(() => navigator.onLine)).toBe(true);
      } finally {
        await browser.close();
      }
      expect(await healthz(base)).toMatchObject({ jail: { enabled: true, chromium_sandbox: 'on' } });
    } finally {
      // --volumes: the image's VOLUME made an anonymous one for the data dir.
      spawnSync('podman', ['rm', '--force', '--volumes', name], { env: PODMAN_ENV, stdio: 'ignore', timeout: 60_000 });
    }
  }, 300_000);
});
