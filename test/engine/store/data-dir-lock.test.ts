/**
 * One engine per data dir, with real engine processes (the CLI `npm run serve` runs): a second
 * engine on a data dir in use exits 1 naming the first's pid, and leaves the first running;
 * after the first dies by SIGKILL (its lock left behind) the next engine takes the data dir
 * over, and a clean stop removes the lock. The lock's own rules (pid reuse, other hosts, old
 * format) are unit tests beside src/engine/store/engine-pid-file.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineEntry } from '../../helpers/engine-bundle.js';
import { startEngineProcess, type EngineProcess } from '../../helpers/engine-process.js';
import { parsePidFile, PID_FILE } from '../../../src/engine/store/engine-pid-file.js';

const repo = path.resolve(import.meta.dirname, '../../..');
/** The engine CLI the helpers start (engine-bundle.ts); the lock names its file. */
const entry = await engineEntry();
const program = path.basename(entry);

interface Cli {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The listening URL once printed; rejects if the engine exits first. */
  listening: Promise<string>;
}

function serveOn(dataDir: string): Cli {
  const proc = spawn(process.execPath, [entry, '--port', '0', '--standby', '0', '--data-dir', dataDir], {
    cwd: repo,
    env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((e) => reject(new Error(`the engine exited (${e.code ?? e.signal}) before listening:\n${out}`)));
  });
  listening.catch(() => {});
  return { proc, output: () => out, exited, listening };
}

const lockOwner = (dataDir: string) => parsePidFile(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8'));

let first: EngineProcess;
const others: Cli[] = [];

beforeAll(async () => {
  first = await startEngineProcess(['--standby', '0']);
});
afterAll(async () => {
  for (const c of others) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await first?.stop();
});

describe('one engine per data dir', () => {
  it('a second engine on a data dir in use exits naming the first; the first keeps serving', async () => {
    expect(lockOwner(first.dataDir)).toMatchObject({ pid: first.proc.pid, program });
    const second = serveOn(first.dataDir);
    others.push(second);
    expect(await second.exited).toEqual({ code: 1, signal: null });
    expect(second.output()).toContain(
      `Browserdeck failed to start: the data dir ${first.dataDir} is in use by another engine: pid ${first.proc.pid} (${program})`,
    );
    expect(await first.healthy()).toBe(true);
    expect(lockOwner(first.dataDir)?.pid).toBe(first.proc.pid);
  });

  it('takes over the lock of an engine killed with SIGKILL, and removes it at a clean stop', async () => {
    const killed = new Promise((r) => first.proc.once('exit', r));
    first.proc.kill('SIGKILL');
    await killed;
    // The crash left its lock behind, naming a pid that is gone.
    expect(lockOwner(first.dataDir)?.pid).toBe(first.proc.pid);

    const next = serveOn(first.dataDir);
    others.push(next);
    const url = await next.listening;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(lockOwner(first.dataDir)?.pid).toBe(next.proc.pid);

    next.proc.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(first.dataDir, PID_FILE))).toBe(false);
  });
});
