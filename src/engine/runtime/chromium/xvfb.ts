/**
 * A private X server for a headful session on Linux without a display: `Xvfb -displayfd`
 * picks a free display number and reports it, the screen matches the viewport, and the
 * server runs in its own process group (argv[0] carries a marker for crash recovery).
 */
import type { HelperJail } from '../sandbox/helper-jail.js';
import { spawn } from 'node:child_process';
import { killGroup } from './process-group.js';

export interface XvfbServer {
  display: string;
  pid: number;
  stop(): Promise<void>;
}

export function needsXvfb(headless: boolean, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): boolean {
  return !headless && platform === 'linux' && !env.DISPLAY;
}

/**
 * `jail`: run in the helper jail (runtime/sandbox/helper-jail.ts) with its own network namespace
 * (no abstract X socket anyone else can reach) and `/tmp/.X11-unix` bound from a private host
 * dir, where its socket is the only way in; the browser jail binds the same dir.
 */
export async function startXvfb(opts: {
  width: number;
  height: number;
  marker: string;
  executable?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  jail?: HelperJail;
}): Promise<XvfbServer> {
  // The create's deadline when it has one (issue 13 item 5), else a bound of its own.
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const command = [opts.executable ?? 'Xvfb', '-displayfd', '3', '-screen', '0', `${opts.width}x${opts.height}x24`, '-nolisten', 'tcp'];
  const child = opts.jail
    ? spawn(opts.jail.file, [...opts.jail.prefix, ...command], { ...opts.jail.spawn, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { argv0: `Xvfb ${opts.marker}`, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  // Xvfb's stderr is the session's `display` supervisor log.
  if (opts.onOutput) child.stderr!.on('data', (d: Buffer) => opts.onOutput!(d.toString()));
  child.stderr!.resume();
  const pid = child.pid;
  if (!pid) throw new Error('could not start Xvfb (is it installed?)');
  try {
    const display = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const onAbort = () =>
        reject(
          new Error(
            (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError' ? 'Xvfb did not report a display in time' : 'the Xvfb start was aborted',
          ),
        );
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      child.stdio[3]!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /^(\d+)\s/.exec(buf);
        if (m) {
          signal.removeEventListener('abort', onAbort);
          resolve(`:${m[1]}`);
        }
      });
      void exited.then(() => {
        signal.removeEventListener('abort', onAbort);
        reject(new Error('Xvfb exited during startup'));
      });
    });
    return {
      display,
      pid,
      async stop() {
        killGroup(pid);
        await exited;
      },
    };
  } catch (err) {
    killGroup(pid);
    await exited;
    throw err;
  }
}
