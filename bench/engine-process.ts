/**
 * An engine in a process of its own, started as `npm run serve` starts it (`node --import tsx
 * src/engine/cli.ts`, default settings plus the flags given), for benches whose client must not
 * share the engine's event loop: in one process, the work an engine does right after writing an
 * answer (a DELETE's teardown, a refill's spawn) runs before the client reads that answer, which
 * a user's client in a process of its own never waits for. Resolves once the engine listens.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');

export interface EngineChild {
  url: string;
  apiKey: string;
  /** The engine's own process (bench/session-cpu.ts reads its CPU). */
  pid: number;
  stop(): Promise<void>;
}

export async function startEngineChild(dataDir: string, flags: string[] = []): Promise<EngineChild> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/engine/cli.ts', '--port', '0', '--data-dir', dataDir, ...flags], {
    cwd: repo,
    env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its output is drained for as long as it runs (a full pipe would block the engine); only the tail is kept.
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code, signal) => reject(new Error(`the engine exited (${signal ?? `code ${code}`}):\n${out.slice(-4000)}`)));
  });
  const apiKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
  return {
    url,
    apiKey,
    pid: proc.pid!,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
