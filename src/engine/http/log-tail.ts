/**
 * The engine log's last lines, for the console's System page (`GET /system`). The logger writes
 * each line (pino: one JSON object per line) to its destination and, through this tee, into a
 * bounded ring of `{time, level, msg}`: only the message and an error's message are kept, never
 * the other fields a line carries, so what the page shows is what an operator reads in the
 * engine's output and nothing more. Bounded by lines and by characters per line.
 */
import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { LogLine } from '../../shared/wire/system-status.js';

export const LOG_TAIL_LINES = 200;
const MAX_MSG_CHARS = 2000;
const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** One pino line as the tail keeps it, or null for a line that is not pino JSON. */
export function tailLineOf(text: string): LogLine | null {
  let o: { time?: unknown; level?: unknown; msg?: unknown; err?: { message?: unknown } };
  try {
    o = JSON.parse(text) as typeof o;
  } catch {
    return null;
  }
  if (typeof o !== 'object' || o === null) return null;
  const msg = [typeof o.msg === 'string' ? o.msg : '', typeof o.err?.message === 'string' ? o.err.message : ''].filter(Boolean).join(': ');
  return {
    time: new Date(typeof o.time === 'number' ? o.time : Date.now()).toISOString(),
    level: LEVELS[Number(o.level)] ?? String(o.level ?? 'info'),
    msg: msg.length > MAX_MSG_CHARS ? `${msg.slice(0, MAX_MSG_CHARS)}…` : msg,
  };
}

export class LogTail {
  private readonly lines: LogLine[] = [];

  constructor(private readonly max = LOG_TAIL_LINES) {}

  /**
   * A destination that writes each line on (by default) the engine's stdout as pino's own
   * default destination does — a synchronous write to fd 1, so nothing is lost at a crash and
   * whatever watches fd 1 sees the same writes as without the tee — and keeps the tail.
   */
  tee(out: (chunk: Buffer | string) => void = writeStdout): Writable {
    return new Writable({
      write: (chunk: Buffer | string, _enc, done) => {
        out(chunk);
        for (const text of String(chunk).split('\n')) if (text) this.push(text);
        done();
      },
    });
  }

  push(text: string): void {
    const line = tailLineOf(text);
    if (!line) return;
    this.lines.push(line);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  /** The kept lines, oldest first. */
  snapshot(): LogLine[] {
    return [...this.lines];
  }
}

/** fd 1, synchronously; a non-blocking stdout that is full (EAGAIN) gets the line through the stream instead. */
function writeStdout(chunk: Buffer | string): void {
  let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  try {
    while (rest.length) rest = rest.subarray(fs.writeSync(1, rest));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    process.stdout.write(rest);
  }
}
