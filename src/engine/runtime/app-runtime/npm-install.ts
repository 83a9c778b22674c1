/**
 * Installs an app's dependencies when it ships a `package.json` but no `node_modules`:
 * `npm ci` with a lockfile, `npm install` without one. Runs in its own process group (a
 * timeout or a deleted deployment ends npm and its children) and streams npm's output lines
 * to the caller, which turns them into deployment log events.
 */
import { appJailArgs, openAppJailNetwork, type AppJail } from './app-jail.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { splitLines } from './line-splitter.js';

export function needsInstall(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'package.json')) && !fs.existsSync(path.join(dir, 'node_modules'));
}

export interface InstallResult {
  ok: boolean;
  command: string;
  reason?: string;
}

/**
 * `jail`: install inside the app jail (the deployment dir writable), where npm reaches the
 * registry through the jail's egress proxy (the helper sets npm's proxy variables).
 */
export async function npmInstall(
  dir: string,
  opts: { env: Record<string, string>; timeoutMs: number; signal?: AbortSignal; onLine: (line: string) => void; jail?: AppJail; modules?: string },
): Promise<InstallResult> {
  const hasLock = fs.existsSync(path.join(dir, 'package-lock.json')) || fs.existsSync(path.join(dir, 'npm-shrinkwrap.json'));
  const args = [hasLock ? 'ci' : 'install', '--no-audit', '--no-fund', '--no-update-notifier'];
  const command = `npm ${args.join(' ')}`;
  opts.onLine(`$ ${command}`);
  const network = opts.jail ? await openAppJailNetwork(opts.jail) : undefined;
  let jailed: Awaited<ReturnType<typeof appJailArgs>> | undefined;
  try {
    jailed =
      opts.jail && network ? await appJailArgs(opts.jail, { dir, writable: true, env: opts.env, modules: opts.modules ?? dir, net: network }) : undefined;
    return await runNpm(dir, args, command, jailed, opts);
  } finally {
    await jailed?.cleanup();
    // npm and everything it started have exited (or were killed with its group).
    await network?.close();
  }
}

function runNpm(
  dir: string,
  args: string[],
  command: string,
  jailed: { file: string; args: string[]; env: Record<string, string>; spawn: { uid?: number; gid?: number } } | undefined,
  opts: { env: Record<string, string>; timeoutMs: number; signal?: AbortSignal; onLine: (line: string) => void },
): Promise<InstallResult> {
  return new Promise((resolve) => {
    const child = jailed
      ? spawn(jailed.file, [...jailed.args, 'npm', ...args], { ...jailed.spawn, cwd: '/', env: jailed.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', args, { cwd: dir, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let why: string | undefined;
    const killTree = (reason: string): void => {
      why ??= reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(() => killTree(`${command} did not finish within ${Math.round(opts.timeoutMs / 1000)} s`), opts.timeoutMs);
    const onAbort = (): void => killTree('the deployment was deleted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const lines = Promise.all([splitLines(child.stdout, opts.onLine), splitLines(child.stderr, opts.onLine)]);
    child.once('error', (err) => {
      why ??= `${command} could not start: ${err.message}`;
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      void lines.then(() => {
        if (why) resolve({ ok: false, command, reason: why });
        else if (code !== 0) resolve({ ok: false, command, reason: `${command} failed with exit code ${code}` });
        else resolve({ ok: true, command });
      });
    });
  });
}
