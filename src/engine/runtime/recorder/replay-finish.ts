/**
 * The finishing pass of a replay: from the fragmented capture to a faststart MP4 (moov before
 * mdat, so players know the duration at once and can seek over HTTP ranges). With cursor
 * marks it re-encodes and draws the cursor PNG at the tracked positions (ffmpeg `sendcmd`
 * moving an `overlay`; hidden = off-frame); without, it only remuxes. Writes to a temp name
 * and renames, so a reader never sees a half-written file.
 */
import type { HelperJail } from '../sandbox/helper-jail.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { exitWithin, runFfmpeg } from './ffmpeg-run.js';
import { cursorPng } from './cursor-png.js';

export interface CursorMark {
  /** Seconds from the first frame. */
  t: number;
  visible: boolean;
  x: number;
  y: number;
}

const OFF = -200;

/** The sendcmd script moving overlay@cursor. */
export function cursorCommands(marks: CursorMark[]): string {
  return marks
    .map((m) => {
      const x = m.visible ? m.x : OFF;
      const y = m.visible ? m.y : OFF;
      return `${m.t.toFixed(3)} overlay@cursor x ${x}, overlay@cursor y ${y};`;
    })
    .join('\n');
}

export async function finishReplay(o: { rawPath: string; finalPath: string; marks: CursorMark[]; log(chunk: string): void; jail?: HelperJail }): Promise<void> {
  const tmp = `${o.finalPath}.part`;
  const dir = path.dirname(o.finalPath);
  let args: string[];
  const extra: string[] = [];
  if (o.marks.length) {
    const png = path.join(dir, `${path.basename(o.finalPath)}.cursor.png`);
    const cmds = path.join(dir, `${path.basename(o.finalPath)}.cursor.cmd`);
    await fsp.writeFile(png, cursorPng());
    await fsp.writeFile(cmds, cursorCommands(o.marks));
    extra.push(png, cmds);
    const graph = `[0:v]setpts=PTS-STARTPTS,sendcmd=f='${cmds.replace(/'/g, '')}'[b];[b][1:v]overlay@cursor=x=${OFF}:y=${OFF}:eval=frame,format=yuv420p[v]`;
    args = [
      '-i',
      o.rawPath,
      '-i',
      png,
      '-filter_complex',
      graph,
      '-map',
      '[v]',
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '26',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      '-y',
      tmp,
    ];
  } else {
    args = ['-i', o.rawPath, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', '-y', tmp];
  }
  try {
    const code = await exitWithin(runFfmpeg(args, o.log, o.jail), 10 * 60_000);
    if (code !== 0) throw new Error(`the finishing pass failed (exit code ${code})`);
    await fsp.rename(tmp, o.finalPath);
  } finally {
    await fsp.rm(tmp, { force: true });
    for (const f of extra) await fsp.rm(f, { force: true });
  }
}
