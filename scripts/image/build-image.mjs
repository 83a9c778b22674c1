#!/usr/bin/env node
/**
 * `npm run image`: builds `localhost/browserdeck:<package.json version>` and `:latest` with podman
 * from deploy/image/Containerfile. Plain Node with builtins (plus the bootstrap's helpers).
 *
 *   1. the base (base-image.mjs): reused when present, else `debian:bookworm-slim` from a registry,
 *      else a debootstrap minbase imported with podman;
 *   2. the console (`electron-vite build`) when out/renderer is stale;
 *   3. the build context (build-context.mjs) in out/image/context;
 *   4. `podman build --format docker` (HEALTHCHECK needs the docker format), then the untagged
 *      images this left behind are removed (only ours: filtered by the image's label).
 *
 * One build at a time on the machine (build-lock.mjs): a second waits, then finds the layers cached.
 *
 * Env: BROWSERDECK_IMAGE=name (default localhost/browserdeck). Prints each step's seconds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDesktopBundles } from '../bootstrap/renderer-build.mjs';
import { run } from '../bootstrap/run.mjs';
import { ensureBaseImage } from './base-image.mjs';
import { stageContext } from './build-context.mjs';
import { holdImageBuildLock } from './build-lock.mjs';
import { step, fail } from './log.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const name = process.env.BROWSERDECK_IMAGE || 'localhost/browserdeck';
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

if (process.platform !== 'linux') fail('the image builds on Linux with podman');
if ((await run('podman', ['--version'], { stdio: 'ignore' })) !== 0) {
  fail('podman is not installed (Debian: apt-get install -y podman runc debootstrap)');
}

await holdImageBuildLock(`npm run image (${name})`);
const started = performance.now();
const base = await step('base image', () => ensureBaseImage());
const built = await step('console (electron-vite build when stale)', () => buildDesktopBundles(root));
if (built !== 0) fail(`electron-vite build failed (exit ${built})`);
const context = await step('build context', () => stageContext(root));
const code = await step('podman build', () =>
  run('podman', [
    'build',
    '--format',
    'docker',
    '--layers',
    '--build-arg',
    `BASE_IMAGE=${base}`,
    '--file',
    path.join(root, 'deploy/image/Containerfile'),
    '--tag',
    `${name}:${version}`,
    '--tag',
    `${name}:latest`,
    context,
  ]),
);
if (code !== 0) fail(`podman build failed (exit ${code})`);
// A rebuild untags the previous image: remove such leftovers of ours, nobody else's.
await run('podman', ['image', 'prune', '--force', '--filter', 'label=io.browserdeck.image=1'], { stdio: 'ignore' });
process.stderr.write(`[image] built ${name}:${version} and ${name}:latest in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
