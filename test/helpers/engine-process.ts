/**
 * An engine in a process of its own (the server CLI, `src/engine/cli.ts`, bundled: engine-bundle.ts), for tests
 * whose probe may kill the engine: in the test's own process an uncaught exception would take
 * the test runner with it, or be reported apart from the test. `guard` races every call against
 * the engine's exit, so a dying engine fails the test at once, with its last output, instead of
 * leaving it to hang until its timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { engineEntry } from './engine-bundle.js';

const repo = path.resolve(import.meta.dirname, '../..');

export interface EngineProcess {
  proc: ChildProcess;
  url: string;
  adminKey: string;
  dataDir: string;
  client: Kernel;
  /** fetch against the engine with the admin key, raced against its death. */
  api(p: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** `p`, unless the engine exits first: then a rejection naming its exit and last output. */
  guard<T>(p: Promise<T>): Promise<T>;
  /** Whether the engine is still running and answers `/healthz` with 200. */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

/** Starts the engine CLI with `args` (after a free port and a fresh data dir) and waits until it listens. */
export async function startEngineProcess(args: string[] = []): Promise<EngineProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-proc-'));
  const proc = spawn(process.execPath, [await engineEntry(), '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: repo,
    env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const onData = (c: Buffer) => {
    out = (out + c.toString()).slice(-20_000);
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const died = new Promise<never>((_, reject) =>
    proc.once('exit', (code, signal) => reject(new Error(`the engine exited (${signal ?? `code ${code}`}); its last output:\n${out.slice(-4000)}`))),
  );
  died.catch(() => {});
  const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, died]);
  const url = await guard(
    new Promise<string>((resolve) => {
      const check = () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      };
      proc.stdout!.on('data', check);
      proc.stderr!.on('data', check);
    }),
  );
  const adminKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
  const client = new Kernel({ apiKey: adminKey, baseURL: url, maxRetries: 0 });
  const api = (p: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${adminKey}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return guard(fetch(url + p, { ...init, headers, body }));
  };
  return {
    proc,
    url,
    adminKey,
    dataDir,
    client,
    api,
    guard,
    async healthy() {
      if (proc.exitCode !== null || proc.signalCode !== null) return false;
      return (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
