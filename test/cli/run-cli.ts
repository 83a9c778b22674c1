/**
 * Runs the `browserdeck` command as a user would, in a subprocess with only the environment a
 * test gives it (no KERNEL_* or BROWSERDECK_* of the test run, and a private XDG_CONFIG_HOME so
 * no login file of the machine is read): `node <entry> …`, where the entry is the CLI's test
 * bundle (cli-bundle.ts) or `bin/browserdeck.mjs` itself (BIN, as `npx browserdeck` runs it).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve(import.meta.dirname, '../../bin/browserdeck.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function baseEnv(configHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(KERNEL_|BROWSERDECK_)/.test(k)) env[k] = v;
  return { ...env, XDG_CONFIG_HOME: configHome };
}

export function runCli(args: string[], opts: { entry: string; env: NodeJS.ProcessEnv; input?: string; cwd?: string }): Promise<CliResult> {
  const proc = spawn(process.execPath, [opts.entry, ...args], { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  proc.stdin.end(opts.input ?? '');
  return new Promise((resolve, reject) => {
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
