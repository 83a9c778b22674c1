/**
 * What the container tests (`image.test.ts`, `cluster.test.ts`) share: why podman cannot run
 * here (if it cannot), running podman or a build with podman's environment, and the images'
 * build (their own, or the one `npm test` started in the background).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PREBUILD_ENV, readPrebuildStatus } from '../../scripts/bootstrap/image-prebuild.mjs';
import { isAlive } from '../helpers/proc.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** podman's own scratch files go where podman keeps them, not into the test run's private TMPDIR. */
export const PODMAN_ENV = { ...process.env, TMPDIR: '/var/tmp' };

/** Why podman cannot run on this machine, or null when it can. */
export function podmanSkipReason(): string | null {
  if (process.platform !== 'linux') return `podman runs on Linux, not ${process.platform}`;
  const info = spawnSync('podman', ['info', '--format', '{{.Host.OCIRuntime.Name}}'], { encoding: 'utf8', timeout: 60_000 });
  if (info.error) return `podman is not installed (${info.error.message})`;
  if (info.status !== 0) return `podman info fails: ${(info.stderr || '').trim().split('\n').pop()}`;
  return null;
}

/** Runs a command to completion with its output captured; resolves with the exit code and output. */
export function runCaptured(cmd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
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

export function podman(...args: string[]): string {
  return execFileSync('podman', args, { encoding: 'utf8', env: PODMAN_ENV, timeout: 120_000 });
}

const logTail = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8').slice(-6000);
  } catch (err) {
    return `(cannot read it: ${(err as Error).message})`;
  }
};

/**
 * Builds the images with their scripts (`npm run image`, `npm run image:postgres`), unless
 * `npm test` is building them in the background (scripts/bootstrap/image-prebuild.mjs names its
 * status file in BROWSERDECK_IMAGE_PREBUILD): then waits up to `timeoutMs` for that build, and
 * fails with its log's tail when it failed. Resolves with where the images came from.
 */
export async function buildImages(scripts: string[], timeoutMs: number): Promise<string> {
  const statusFile = process.env[PREBUILD_ENV];
  if (statusFile) {
    const deadline = Date.now() + timeoutMs;
    let status = readPrebuildStatus(statusFile);
    while (status?.state === 'running' && isAlive(status.pid) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      status = readPrebuildStatus(statusFile);
    }
    if (status?.state === 'running' && Date.now() >= deadline) {
      throw new Error(`npm test's background image build is still running after ${timeoutMs / 1000} s; the end of ${status.log}:\n${logTail(status.log)}`);
    }
    // code null: it found podman unusable, and this test would have skipped; build here then.
    if (status?.state === 'done' && status.code !== null && status.code !== undefined) {
      if (status.code !== 0)
        throw new Error(`npm test's background image build failed (exit ${status.code}); the end of ${status.log}:\n${logTail(status.log)}`);
      if (scripts.every((s) => status!.scripts.includes(s))) return `built in the background by npm test in ${status.seconds?.toFixed(1)} s`;
    }
  }
  for (const script of scripts) {
    const build = await runCaptured(process.execPath, [script], timeoutMs);
    if (build.code !== 0) throw new Error(`${script} failed (exit ${build.code}):\n${build.output.slice(-4000)}`);
  }
  return 'built by this test';
}
