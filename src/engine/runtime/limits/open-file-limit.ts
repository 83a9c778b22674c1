/**
 * The engine's soft open-file limit (RLIMIT_NOFILE), read from `/proc/self/limits`, and the
 * per-engine connection cap derived from it. Every WebSocket a client opens costs the engine
 * about two descriptors (the client's socket and the upstream one: the browser's DevTools, a
 * BiDi mapper, a piped node); connections get at most half of the limit, so sessions, SQLite,
 * logs and new creates keep the other half however many sockets tenants open.
 */
import fs from 'node:fs';

/** What the engine assumes when the limit cannot be read (not Linux) or is unlimited. */
const FALLBACK_NOFILE = 1024;
const UNLIMITED_NOFILE = 1024 * 1024;

/** The soft `Max open files` of a `/proc/<pid>/limits` text; undefined when absent. */
export function softNofileOf(limitsText: string): number | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limitsText);
  if (!m) return undefined;
  if (m[1] === 'unlimited') return UNLIMITED_NOFILE;
  const n = Number(m[1]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function softNofile(): number {
  try {
    return softNofileOf(fs.readFileSync('/proc/self/limits', 'utf8')) ?? FALLBACK_NOFILE;
  } catch {
    return FALLBACK_NOFILE;
  }
}

/** Connections may use half the descriptors, two each: a quarter of the soft limit (at least 1). */
export function connectionCapFor(nofile: number): number {
  return Math.max(1, Math.floor(nofile / 4));
}
