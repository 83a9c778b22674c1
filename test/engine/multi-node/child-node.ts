/**
 * An engine node in a process of its own (the CLI `npm run serve` runs, bundled:
 * test/helpers/engine-bundle.ts) on node A's database: what a node-loss test kills with SIGKILL or
 * freezes with SIGSTOP, which an engine inside the test's own process cannot be. It shares A's secret key
 * file and answers with A's admin key; its data dir (so its node id) is its own, and a restart
 * on the same dir is the same node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { engineEntry } from '../../helpers/engine-bundle.js';
import type { TestEngine } from '../../helpers/engine.js';

const root = path.resolve(import.meta.dirname, '../../..');

export interface ChildNode {
  proc: ChildProcess;
  pid: number;
  url: string;
  nodeId: string;
  client: Kernel;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether it ended by a signal it did not handle (SIGKILL). */
  readonly killed: boolean;
  output(): string;
  /** Clean stop (SIGTERM), as an operator's stop would; resolves when the process is gone. */
  stop(): Promise<void>;
}

export async function spawnNode(a: TestEngine, dataDir: string, args: string[] = []): Promise<ChildNode> {
  const proc = spawn(
    process.execPath,
    [await engineEntry(), '--port', '0', '--data-dir', dataDir, '--database-url', a.engine.config.databaseUrl!, '--standby', '0', ...args],
    {
      cwd: root,
      env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn', BROWSERDECK_SECRET_KEY_FILE: path.join(a.dataDir, 'secret.key') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Browserdeck listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      proc.stdout!.off('data', onData);
      resolve({
        proc,
        pid: proc.pid!,
        url: m[1],
        nodeId: fs.readFileSync(path.join(dataDir, 'node-id'), 'utf8').trim(),
        client: new Kernel({ apiKey: a.adminKey, baseURL: m[1], maxRetries: 0 }),
        exited,
        get killed() {
          return proc.signalCode === 'SIGKILL';
        },
        output: () => out,
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
          await exited;
        },
      });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((e) => reject(new Error(`engine node exited (${e.code ?? e.signal}) before listening:\n${out}`)));
  });
}
