/**
 * `npm run serve` end to end: runs the real bootstrap (`node scripts/bootstrap.mjs serve`), which
 * starts the engine CLI as its child, and stops it with SIGTERM and with SIGINT. Proves the
 * signal reaches the engine (clean exit 0, port released, no child left behind), that the first
 * start prints the admin key once and stores it 0600, and that a second start on the same data
 * dir keeps that key and prints no new one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-serve-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface Served {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the bootstrap and resolves once the CLI printed its listening URL. */
function serve(): Promise<Served> {
  // Install steps are the job of `npm test`'s own bootstrap; here they would only race it.
  const proc = spawn(process.execPath, ['scripts/bootstrap.mjs', 'serve', '--', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, BROWSERDECK_SKIP_INSTALL: '1', BROWSERDECK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Browserdeck listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1], output: () => out, exited });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((e) => reject(new Error(`serve exited (${e.code ?? e.signal}) before listening:\n${out}`)));
  });
}

/** Direct children of a process (Linux /proc), to prove none outlives the stop. */
function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`);
    return false;
  } catch {
    return true;
  }
}

describe('npm run serve (scripts/bootstrap.mjs serve)', () => {
  let firstKey = '';

  it('first start prints the admin key once, stores it 0600, and stops cleanly on SIGTERM', async () => {
    const s = await serve();
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    const keyFile = path.join(dataDir, 'admin-api-key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    firstKey = fs.readFileSync(keyFile, 'utf8').trim();
    expect(firstKey.length).toBeGreaterThan(20);
    expect(s.output()).toContain('Created the admin API key');
    expect(s.output().split(firstKey).length - 1).toBe(1);
    const projects = await fetch(`${s.url}/org/projects`, { headers: { authorization: `Bearer ${firstKey}` } });
    expect(projects.status).toBe(200);

    const engineChildren = childrenOf(s.proc.pid!);
    expect(engineChildren.length).toBeGreaterThan(0);
    s.proc.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.output()).toContain('SIGTERM: stopping Browserdeck');
    expect(engineChildren.filter(alive)).toEqual([]);
    expect(await refused(s.url)).toBe(true);
  });

  it('a second start keeps the key, prints no new one, and stops cleanly on SIGINT', async () => {
    expect(firstKey).not.toBe('');
    const s = await serve();
    expect(s.output()).not.toContain('Created the admin API key');
    expect(fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()).toBe(firstKey);
    const projects = await fetch(`${s.url}/org/projects`, { headers: { authorization: `Bearer ${firstKey}` } });
    expect(projects.status).toBe(200);

    const engineChildren = childrenOf(s.proc.pid!);
    s.proc.kill('SIGINT');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.output()).toContain('SIGINT: stopping Browserdeck');
    expect(engineChildren.filter(alive)).toEqual([]);
    expect(await refused(s.url)).toBe(true);
  });
});
