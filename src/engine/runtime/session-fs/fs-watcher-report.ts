/**
 * What a session's watcher process (fs-watcher-child.mjs) writes on stdout, read as untrusted
 * input: it runs as the session's uid, so the engine believes nothing it says beyond the shape.
 * Lines are bounded (a longer one ends the watcher), each must be one of the known reports with
 * fields of the right type, and an event's path must be a plain relative path (no `.`/`..`, no
 * empty or NUL-bearing names, bounded) that joins to a client path inside the watched directory;
 * anything else is dropped.
 */
import path from 'node:path';

export type WatchEventType = 'CREATE' | 'WRITE' | 'DELETE' | 'RENAME';
const EVENT_TYPES: readonly string[] = ['CREATE', 'WRITE', 'DELETE', 'RENAME'];
const REFUSALS = ['watch_limit', 'not_found', 'watch_failed'] as const;
export type WatchRefusal = (typeof REFUSALS)[number];

export type WatcherReport =
  | { t: 'added'; id: string; dirs: number }
  | { t: 'refused'; id: string; code: WatchRefusal; dirs?: number; budget?: number }
  | { t: 'event'; id: string; type: WatchEventType; path: string; dir: boolean }
  | { t: 'limit'; id: string; dirs: number; budget: number }
  | { t: 'ended'; id: string };

/** Longest report line accepted: an event with a path of PATH_MAX bytes, JSON-escaped, fits. */
export const MAX_REPORT_LINE = 32 * 1024;
const MAX_REL_PATH = 4096;

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isId = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f-]{1,64}$/.test(v);

/** A relative path the watcher may report: names joined by '/', nothing that climbs or is empty. */
export function isPlainRelativePath(rel: unknown): rel is string {
  if (typeof rel !== 'string' || rel === '' || rel.length > MAX_REL_PATH || rel.includes('\0')) return false;
  return rel.split('/').every((n) => n !== '' && n !== '.' && n !== '..');
}

/** One report line, or undefined when it is not a well-formed report. */
export function parseReport(line: string): WatcherReport | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (!isId(r.id)) return undefined;
  const id = r.id;
  switch (r.t) {
    case 'added':
      return isCount(r.dirs) ? { t: 'added', id, dirs: r.dirs } : undefined;
    case 'refused':
      if (!REFUSALS.includes(r.code as WatchRefusal)) return undefined;
      return {
        t: 'refused',
        id,
        code: r.code as WatchRefusal,
        ...(isCount(r.dirs) ? { dirs: r.dirs } : {}),
        ...(isCount(r.budget) ? { budget: r.budget } : {}),
      };
    case 'event':
      if (!EVENT_TYPES.includes(r.type as string) || typeof r.dir !== 'boolean' || !isPlainRelativePath(r.path)) return undefined;
      return { t: 'event', id, type: r.type as WatchEventType, path: r.path, dir: r.dir };
    case 'limit':
      return isCount(r.dirs) && isCount(r.budget) ? { t: 'limit', id, dirs: r.dirs, budget: r.budget } : undefined;
    case 'ended':
      return { t: 'ended', id };
    default:
      return undefined;
  }
}

/** The client path of a reported `rel` below the watched client dir, or undefined when it would leave it. */
export function clientPathBelow(dir: string, rel: string): string | undefined {
  if (!isPlainRelativePath(rel)) return undefined;
  const joined = path.posix.join(dir, rel);
  const prefix = dir === '/' ? '/' : `${dir}/`;
  return joined.startsWith(prefix) && joined.length > prefix.length ? joined : undefined;
}

/**
 * Splits a byte stream into lines of at most `max` bytes; a longer line calls `onOverflow`
 * (once) and nothing after it is delivered. Work per chunk is linear in the chunk.
 */
export function boundedLines(max: number, onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let broken = false;
  return (chunk) => {
    if (broken) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (partialBytes + nl - start > max) break;
      const line = Buffer.concat([...partial, chunk.subarray(start, nl)]).toString('utf8');
      partial = [];
      partialBytes = 0;
      start = nl + 1;
      onLine(line);
    }
    const rest = chunk.subarray(start);
    const restLine = rest.indexOf(10);
    if (partialBytes + (restLine >= 0 ? restLine : rest.length) > max) {
      broken = true;
      partial = [];
      onOverflow();
      return;
    }
    partial.push(rest);
    partialBytes += rest.length;
  };
}
