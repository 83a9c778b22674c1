/**
 * What the container tests (`image.test.ts`, `cluster.test.ts`) share: why podman cannot run
 * here (if it cannot), and running podman or a build with podman's environment.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
