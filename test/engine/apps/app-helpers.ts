/**
 * Helpers of the apps tests: zips built with yazl from the sample app (plus or minus files),
 * deploying through the official client and following the deployment's event stream to its
 * end, and reading an SSE stream of the client to the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';
import { toFile } from '@onkernel/sdk';
import type Kernel from '@onkernel/sdk';

export const SAMPLE_APP_DIR = fileURLToPath(new URL('../../fixtures/sample-app/', import.meta.url));

/** A zip of `files` (relative path → content). */
export async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The sample app's files (index.ts), optionally with overrides. */
export function sampleFiles(extra: Record<string, string> = {}): Record<string, string> {
  return { 'index.ts': fs.readFileSync(path.join(SAMPLE_APP_DIR, 'index.ts'), 'utf8'), ...extra };
}

export interface StreamedEvent {
  event: string;
  [k: string]: unknown;
}

/** Reads a client stream until the server ends it. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<StreamedEvent[]> {
  const out: StreamedEvent[] = [];
  for await (const e of stream) out.push(e as StreamedEvent);
  return out;
}

export async function deploy(
  client: Kernel,
  files: Record<string, string | Buffer>,
  opts: { version?: string; force?: boolean; entrypoint?: string; env?: Record<string, string> } = {},
) {
  const dep = await client.deployments.create({
    file: await toFile(await zipOf(files), 'app.zip', { type: 'application/zip' }),
    entrypoint_rel_path: opts.entrypoint ?? 'index.ts',
    version: opts.version,
    force: opts.force,
    env_vars: opts.env,
  });
  const events = await readAll(await client.deployments.follow(dep.id));
  const final = await client.deployments.retrieve(dep.id);
  return { created: dep, events, final };
}

export function logLines(events: StreamedEvent[]): string[] {
  return events.filter((e) => e.event === 'log').map((e) => String(e.message));
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Exited (or only a zombie waiting to be reaped). */
export function processGone(pid: number): boolean {
  if (!pidAlive(pid)) return true;
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return true;
  }
}

function readOr(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

/** The bwrap processes of the app jails of the engine with this data dir (their command line binds the deployment). */
export function appJails(dataDir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      const cmd = readOr(`/proc/${pid}/cmdline`).replace(/\0/g, ' ');
      return /(^|\/)bwrap /.test(cmd) && cmd.includes(dataDir) && cmd.includes('--browserdeck-app-runner');
    });
}

/**
 * Host pids of processes an app reported as its own `process.pid`s. A jailed app lives in its
 * own pid namespace and sees other numbers: they are matched through NSpid among the
 * descendants of that engine's app jails. Unjailed, the numbers are host pids already.
 */
export function hostPidsOfApp(pids: number[], dataDir: string): number[] {
  const jails = appJails(dataDir);
  if (jails.length === 0) return pids;
  const found: number[] = [];
  const todo = [...jails];
  const seen = new Set<number>();
  while (todo.length) {
    const pid = todo.pop()!;
    // The outer bwrap and its inner init both carry the command line: walk each tree once.
    if (seen.has(pid)) continue;
    seen.add(pid);
    for (const task of readOr(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/).filter(Boolean)) todo.push(Number(task));
    const ns =
      /^NSpid:\s+(.*)$/m
        .exec(readOr(`/proc/${pid}/status`))?.[1]
        .split(/\s+/)
        .map(Number) ?? [];
    if (ns.length > 1 && pids.includes(ns[ns.length - 1])) found.push(pid);
  }
  return found;
}
