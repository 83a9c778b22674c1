/**
 * Finding the programs the engine runs (Chromium, chromedriver, ffmpeg): whether a path is an
 * executable file, and the candidates `PATH` offers for a bare name.
 */
import fs from 'node:fs';
import path from 'node:path';

export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `<dir>/<name>` for each directory of `PATH`, in order. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d) => path.posix.join(d, name));
}

/** The first executable among `candidates`, or undefined. */
export function firstExecutable(candidates: string[]): string | undefined {
  return candidates.find(isExecutable);
}
