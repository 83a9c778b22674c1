/**
 * Runs ffmpeg for the recorder: its stderr goes line by line to the session's `recorder`
 * service log (what `/logs/stream?source=supervisor&supervisor_process=recorder` shows), and
 * the child is killed if the engine gives up on it. Resolves with the exit code.
 */
import type { HelperJail } from '../sandbox/helper-jail.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { firstExecutable, onPath } from '../find-executable.js';

export interface FfmpegRun {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
}

/** `jail`: run inside the helper jail (runtime/sandbox/helper-jail.ts) instead of on the host. */
export function runFfmpeg(args: string[], log: (chunk: string) => void, jail?: HelperJail, ffmpeg = process.env.BROWSERDECK_FFMPEG ?? 'ffmpeg'): FfmpegRun {
  const command = [ffmpeg, '-hide_banner', '-nostdin', '-loglevel', 'warning', ...args];
  const child = jail
    ? spawn(jail.file, [...jail.prefix, ...command], { ...jail.spawn, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (c: Buffer) => log(c.toString()));
  child.stdout.resume();
  child.stdin.on('error', () => {}); // EPIPE when ffmpeg died first: reported through the exit code
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (err) => {
      log(`ffmpeg could not start: ${err.message}\n`);
      resolve(-1);
    });
    child.once('close', (code) => resolve(code));
  });
  return { child, exited };
}

/** Waits for exit; SIGKILLs after `ms` (a stuck encoder never blocks a session's end). */
export async function exitWithin(run: FfmpegRun, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      resolve(null);
    }, ms);
  });
  const code = await Promise.race([run.exited, killed]);
  clearTimeout(timer);
  return code;
}

/** Whether the recorder's ffmpeg can be found (an absolute BROWSERDECK_FFMPEG, else on PATH). */
export function ffmpegAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  const name = env.BROWSERDECK_FFMPEG ?? 'ffmpeg';
  return firstExecutable(name.includes('/') ? [name] : onPath(name, env)) !== undefined;
}
