#!/usr/bin/env node
/**
 * `npm run image:postgres`: builds `localhost/browserdeck-postgres:15` with podman from
 * deploy/image/postgres.Containerfile, on the engine image's base (base-image.mjs) with the same
 * Debian sources (apt-sources.mjs): the PostgreSQL deploy/kubernetes/cluster.yaml and
 * deploy/compose.yaml run. Its context is out/image/postgres (the entrypoint and `apt/`).
 *
 * One build at a time on the machine (build-lock.mjs).
 *
 * Env: BROWSERDECK_POSTGRES_IMAGE=name (default localhost/browserdeck-postgres).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../bootstrap/run.mjs';
import { writeAptSources } from './apt-sources.mjs';
import { ensureBaseImage } from './base-image.mjs';
import { holdImageBuildLock } from './build-lock.mjs';
import { step, fail } from './log.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const name = process.env.BROWSERDECK_POSTGRES_IMAGE || 'localhost/browserdeck-postgres';

if (process.platform !== 'linux') fail('the image builds on Linux with podman');
if ((await run('podman', ['--version'], { stdio: 'ignore' })) !== 0) fail('podman is not installed (Debian: apt-get install -y podman runc debootstrap)');

await holdImageBuildLock(`npm run image:postgres (${name})`);
const started = performance.now();
const base = await step('base image', () => ensureBaseImage());
const context = path.join(root, 'out/image/postgres');
fs.rmSync(context, { recursive: true, force: true });
fs.mkdirSync(context, { recursive: true });
fs.copyFileSync(path.join(root, 'deploy/image/postgres-entrypoint.sh'), path.join(context, 'postgres-entrypoint.sh'));
fs.chmodSync(path.join(context, 'postgres-entrypoint.sh'), 0o755);
writeAptSources(path.join(context, 'apt'));
const code = await step('podman build (postgres)', () =>
  run('podman', [
    'build',
    '--format',
    'docker',
    '--layers',
    '--build-arg',
    `BASE_IMAGE=${base}`,
    '--file',
    path.join(root, 'deploy/image/postgres.Containerfile'),
    '--tag',
    `${name}:15`,
    '--tag',
    `${name}:latest`,
    context,
  ]),
);
if (code !== 0) fail(`podman build failed (exit ${code})`);
await run('podman', ['image', 'prune', '--force', '--filter', 'label=io.browserdeck.image=1'], { stdio: 'ignore' });
process.stderr.write(`[image] built ${name}:15 in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
