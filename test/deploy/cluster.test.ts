/**
 * The cluster manifest and the compose file for real (issue 31): the images come from `npm test`'s
 * background build, or `npm run image` and `npm run image:postgres` here, once for both parts.
 *
 * Cluster: `podman kube play deploy/kubernetes/cluster.yaml` runs PostgreSQL and two engine
 * replicas (under names and a volume of the test's own), a session created through the official
 * SDK on one replica is driven with Playwright through the other, and when the first replica's
 * container is killed (`podman kill`: SIGKILL) its session ends `node_lost` — noticed by the other
 * replica through the database lease; the time it took is printed, not asserted. The replicas
 * are reached at their pod IPs on podman's kube network (on this host only): kube play has no
 * Services, and a hostPort cannot be given twice in one Deployment. Each replica's data dir must
 * be its own (one node id each): the test checks both registered.
 *
 * Compose: `podman-compose up -d` of deploy/compose.yaml (on another host port, with
 * BROWSERDECK_PUBLIC_URL set to it as its comment says), a session through the SDK and
 * Playwright on 127.0.0.1 with the jail and Chromium's sandbox on, then `down -v`, which must
 * leave no container and no volume of the project behind.
 *
 * Everything the test started is removed afterwards, also on failure; the images stay (the next
 * build's cache). Skipped, loudly, where podman (or podman-compose) cannot run (`.ci/run`
 * installs them: scripts/bootstrap/container-tools.mjs).
 *
 * @own-process builds images and runs pods for minutes; its timeouts are its own.
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

const NAME = 'bdclustertest';
const IMAGE = process.env.BROWSERDECK_IMAGE || 'localhost/browserdeck';
const PG_IMAGE = process.env.BROWSERDECK_POSTGRES_IMAGE || 'localhost/browserdeck-postgres';
const BUILD_MS = 15 * 60_000;
const READY_MS = 4 * 60_000;

const skipReason = podmanSkipReason();
if (skipReason) {
  console.warn(`\n!!! SKIPPED test/deploy/cluster.test.ts: ${skipReason}. The cluster manifest and the compose file are NOT tested here.\n`);
}

let images: Promise<{ seconds: number; how: string }> | undefined;
/** Both images, built (or npm test's background build waited for) once for the file's two parts. */
function imagesReady(): Promise<{ seconds: number; how: string }> {
  images ??= (async () => {
    const t0 = performance.now();
    const how = await buildImages(['scripts/image/build-image.mjs', 'scripts/image/build-postgres-image.mjs'], 2 * BUILD_MS);
    return { seconds: (performance.now() - t0) / 1000, how };
  })();
  return images;
}

/** The cluster manifest with the test's names, volume and images (nothing else changed). */
function testManifest(): string {
  const text = fs.readFileSync(path.join(root, 'deploy/kubernetes/cluster.yaml'), 'utf8');
  const out = text
    .replace(/localhost\/browserdeck-postgres:15/g, `${PG_IMAGE}:15`)
    .replace(/localhost\/browserdeck:latest/g, `${IMAGE}:latest`)
    .replace(/(?<![/\w-])browserdeck-postgres\b/g, `${NAME}-postgres`)
    .replace(/\bbrowserdeck-shm\b/g, `${NAME}-shm`)
    .replace(/^( {2}name:) browserdeck$/gm, `$1 ${NAME}`);
  expect(out).toContain(`name: ${NAME}\n`);
  expect(out).toContain(`@${NAME}-postgres-pod-0:5432/`);
  expect(out).toContain(`claimName: ${NAME}-postgres-data`);
  return out;
}

const pods = [`${NAME}-pod-0`, `${NAME}-pod-1`];
const engineContainer = (pod: string) => `${pod}-engine`;

function podIp(pod: string): string {
  const infra = podman('pod', 'inspect', pod, '--format', '{{.InfraContainerID}}').trim();
  return podman('inspect', infra, '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}').trim();
}

async function healthz(base: string): Promise<Health | null> {
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? ((await res.json()) as Health) : null;
  } catch {
    return null;
  }
}

/** `url` with its origin replaced by `base`'s (what a load balancer in front of the replicas does). */
function via(base: string, url: string): string {
  const u = new URL(url);
  const b = new URL(base);
  u.host = b.host;
  return u.toString();
}

describe.skipIf(skipReason !== null)(`the cluster manifest under podman kube play${skipReason ? ` (SKIPPED: ${skipReason})` : ''}`, () => {
  let dir: string;
  let manifest: string;
  let played = false;
  const bases: string[] = [];
  let apiKey = '';
  const timings: Record<string, number> = {};
  let built = '';

  const down = () => {
    // The replicas' data dirs are anonymous volumes (the image's VOLUME): named before the pods go.
    const anonymous = pods.flatMap((pod) => {
      const r = spawnSync('podman', ['inspect', engineContainer(pod), '--format', '{{range .Mounts}}{{.Name}} {{end}}'], { encoding: 'utf8', env: PODMAN_ENV });
      return r.status === 0
        ? r.stdout
            .trim()
            .split(/\s+/)
            .filter((v) => /^[0-9a-f]{64}$/.test(v))
        : [];
    });
    spawnSync('podman', ['kube', 'down', manifest], { env: PODMAN_ENV, stdio: 'ignore', timeout: 180_000 });
    // kube down 4.3 leaves a pod whose container failed to start.
    spawnSync('podman', ['pod', 'rm', '--force', ...pods, `${NAME}-postgres-pod-0`], { env: PODMAN_ENV, stdio: 'ignore', timeout: 120_000 });
    spawnSync('podman', ['volume', 'rm', '--force', `${NAME}-postgres-data`, `${NAME}-shm`, ...anonymous], {
      env: PODMAN_ENV,
      stdio: 'ignore',
      timeout: 60_000,
    });
  };

  beforeAll(
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browserdeck-cluster-test-'));
      manifest = path.join(dir, 'cluster.yaml');
      fs.writeFileSync(manifest, testManifest());
      // Leftovers of an interrupted run would make `kube play` fail on existing names.
      down();

      const ready = await imagesReady();
      timings.build_s = ready.seconds;
      built = ready.how;

      const t0 = performance.now();
      played = true;
      podman('kube', 'play', manifest);
      for (const pod of pods) bases.push(`http://${podIp(pod)}:8420`);
      const deadline = Date.now() + READY_MS;
      for (const base of bases) {
        while (!(await healthz(base)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
      }
      timings.ready_s = (performance.now() - t0) / 1000;
      for (const [i, base] of bases.entries()) {
        if (!(await healthz(base))) throw new Error(`replica ${i} did not answer /healthz; its log:\n${podman('logs', engineContainer(pods[i])).slice(-4000)}`);
      }
      // The first start made one admin key, in the data dir of the replica that made it.
      for (const pod of pods) {
        const r = spawnSync('podman', ['exec', '--user', '1000', engineContainer(pod), 'cat', '/var/lib/browserdeck/admin-api-key'], {
          encoding: 'utf8',
          env: PODMAN_ENV,
        });
        if (r.status === 0) apiKey = r.stdout.trim();
      }
      if (!apiKey) throw new Error('no replica wrote an admin key');
    },
    2 * BUILD_MS + READY_MS + 60_000,
  );

  afterAll(async () => {
    console.log(`[cluster test] builds ${timings.build_s?.toFixed(1)} s (${built}), kube play to both /healthz ${timings.ready_s?.toFixed(1)} s`);
    if (played) down();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('runs two replicas on PostgreSQL, each with the jail on and a node of its own', async () => {
    for (const base of bases) expect(await healthz(base)).toMatchObject({ ok: true, jail: { enabled: true }, store: { kind: 'postgres', ok: true } });
    const ids = pods.map((pod) => podman('exec', '--user', '1000', engineContainer(pod), 'cat', '/var/lib/browserdeck/node-id').trim());
    expect(new Set(ids).size).toBe(2);
  });

  it("serves a session made on one replica through the other, and ends it node_lost when the first one's container is killed", async () => {
    const [first, second] = bases.map((base) => new Kernel({ apiKey, baseURL: base, maxRetries: 0 }));
    const session = await first.browsers.create({ headless: true, timeout_seconds: 600 });
    const browser = await chromium.connectOverCDP(via(bases[1], session.cdp_ws_url));
    try {
      const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
      await page.goto('data:text/html,<title>one cluster</title>');
      expect(await page.title()).toBe('one cluster');
    } finally {
      await browser.close();
    }
    // Which replica runs it: the one it was created on (its node id is in the session's row, not the DTO).
    expect((await second.browsers.retrieve(session.session_id)).session_id).toBe(session.session_id);

    const killedAt = Date.now();
    podman('kill', engineContainer(pods[0]));
    // Polled in the list, which reads the shared database (a call for the session itself would
    // be forwarded to the vanished pod while it counts as alive, and wait out a connect timeout).
    let endedAfterMs = -1;
    for (let i = 0; i < 300 && endedAfterMs < 0; i++) {
      const running: string[] = [];
      for await (const b of second.browsers.list()) running.push(b.session_id);
      if (!running.includes(session.session_id)) endedAfterMs = Date.now() - killedAt;
      else await new Promise((r) => setTimeout(r, 100));
    }
    let ended: { status?: number; code?: string; message?: string } = {};
    try {
      await second.browsers.fs.readFile(session.session_id, { path: '/x' });
    } catch (err) {
      const e = err as { status?: number; error?: { code?: string; message?: string } };
      ended = { status: e.status, code: e.error?.code, message: e.error?.message };
    }
    console.log(`[cluster test] replica 0 killed: its session ended ${endedAfterMs} ms later (${ended.message})`);
    expect(ended).toMatchObject({ status: 404, code: 'session_ended' });
    expect(ended.message).toContain('node_lost');
  });
});

const COMPOSE_PROJECT = 'bdcomposetest';
/** Not 8420 (a developer's engine) nor the image test's 18420: the files may run side by side. */
const COMPOSE_PORT = 18_421;
const composeSkip =
  skipReason ?? (spawnSync('podman-compose', ['version'], { env: PODMAN_ENV, timeout: 60_000 }).error ? 'podman-compose is not installed' : null);
if (!skipReason && composeSkip) {
  console.warn(`\n!!! SKIPPED the compose part of test/deploy/cluster.test.ts: ${composeSkip}. deploy/compose.yaml is NOT tested here.\n`);
}

/** deploy/compose.yaml with the test's port, public URL and images (nothing else changed). */
function testComposeFile(): string {
  const text = fs.readFileSync(path.join(root, 'deploy/compose.yaml'), 'utf8');
  const out = text
    .replace(/localhost\/browserdeck-postgres:15/g, `${PG_IMAGE}:15`)
    .replace(/localhost\/browserdeck:latest/g, `${IMAGE}:latest`)
    .replace(/- 127\.0\.0\.1:8420:8420/, `- 127.0.0.1:${COMPOSE_PORT}:8420`)
    .replace(/# (BROWSERDECK_PUBLIC_URL:) https:\/\/browserdeck\.example\.com/, `$1 http://127.0.0.1:${COMPOSE_PORT}`);
  expect(out).toContain(`- 127.0.0.1:${COMPOSE_PORT}:8420`);
  expect(out).toContain(`      BROWSERDECK_PUBLIC_URL: http://127.0.0.1:${COMPOSE_PORT}`);
  return out;
}

/** What podman holds for the compose project (podman-compose labels everything it makes). */
function composeLeftovers(): { containers: string[]; volumes: string[] } {
  const label = `label=io.podman.compose.project=${COMPOSE_PROJECT}`;
  const lines = (s: string) => s.split('\n').filter(Boolean);
  return {
    containers: lines(podman('ps', '-a', '--filter', label, '--format', '{{.Names}}')),
    volumes: lines(podman('volume', 'ls', '--filter', label, '--format', '{{.Name}}')),
  };
}

describe.skipIf(composeSkip !== null)(`the compose file under podman-compose${composeSkip ? ` (SKIPPED: ${composeSkip})` : ''}`, () => {
  let dir: string;
  let file: string;
  const base = `http://127.0.0.1:${COMPOSE_PORT}`;
  const engine = `${COMPOSE_PROJECT}_engine_1`;
  const compose = (...args: string[]) => runCaptured('podman-compose', ['-p', COMPOSE_PROJECT, '-f', file, ...args], 180_000);
  const down = async () => {
    await compose('down', '-v');
    // podman-compose 1.0.3 leaves the project's network behind.
    spawnSync('podman', ['network', 'rm', '--force', `${COMPOSE_PROJECT}_default`], { env: PODMAN_ENV, stdio: 'ignore', timeout: 60_000 });
  };

  beforeAll(
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browserdeck-compose-test-'));
      file = path.join(dir, 'compose.yaml');
      fs.writeFileSync(file, testComposeFile());
      await down();
      const ready = await imagesReady();
      const t0 = performance.now();
      const up = await compose('up', '-d');
      if (up.code !== 0) throw new Error(`podman-compose up failed (exit ${up.code}):\n${up.output.slice(-4000)}`);
      const deadline = Date.now() + READY_MS;
      while (!(await healthz(base)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
      console.log(`[compose test] builds ${ready.seconds.toFixed(1)} s (${ready.how}), up to /healthz ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      if (!(await healthz(base))) throw new Error(`the engine did not answer /healthz; its log:\n${podman('logs', engine).slice(-4000)}`);
    },
    2 * BUILD_MS + READY_MS + 60_000,
  );

  afterAll(async () => {
    if (file) await down();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('serves a session to the official SDK and Playwright on 127.0.0.1, on PostgreSQL with the jail and Chromium sandbox on', async () => {
    expect(await healthz(base)).toMatchObject({ ok: true, jail: { enabled: true }, store: { kind: 'postgres', ok: true } });
    const apiKey = podman('exec', '--user', '1000', engine, 'cat', '/var/lib/browserdeck/admin-api-key').trim();
    const client = new Kernel({ apiKey, baseURL: base, maxRetries: 0 });
    const session = await client.browsers.create({ headless: true });
    try {
      // BROWSERDECK_PUBLIC_URL at work: the URL handed out is the published port's, not the container's.
      expect(new URL(session.cdp_ws_url).host).toBe(`127.0.0.1:${COMPOSE_PORT}`);
      const browser = await chromium.connectOverCDP(session.cdp_ws_url);
      try {
        const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
        await page.goto('data:text/html,<title>composed</title>');
        expect(await page.title()).toBe('composed');
      } finally {
        await browser.close();
      }
      expect(await healthz(base)).toMatchObject({ jail: { enabled: true, chromium_sandbox: 'on' } });
    } finally {
      await client.browsers.deleteByID(session.session_id);
    }
  });

  it('down -v removes its containers and volumes', async () => {
    expect(composeLeftovers().volumes.length).toBeGreaterThan(0);
    const r = await compose('down', '-v');
    expect(r.code).toBe(0);
    expect(composeLeftovers()).toEqual({ containers: [], volumes: [] });
  });
});
