/**
 * The arithmetic of audit export windows (spec §13): fixed event-time windows of `windowMs`
 * (a divisor of an hour, so a window lies in one UTC hour), committable once `holdMs` has passed
 * after their end; the object key of a window's chunk; and the opaque, versioned cursor the
 * destination reports. All pure, so the rules are unit-tested without S3 or a database.
 */

export interface WindowTiming {
  windowMs: number;
  holdMs: number;
}

/** The end of the window that `atMs` lies in (exclusive). */
export function windowEndAfter(atMs: number, windowMs: number): number {
  return Math.floor(atMs / windowMs) * windowMs + windowMs;
}

export function windowStartOf(atMs: number, windowMs: number): number {
  return Math.floor(atMs / windowMs) * windowMs;
}

/** Every window ending at or before this instant may be committed now. */
export function committableEnd(nowMs: number, t: WindowTiming): number {
  return windowStartOf(nowMs - t.holdMs, t.windowMs);
}

/** `2026-11-26T05:35:00.000Z` → `20261126T053500Z` (object names sort by time). */
export function compactTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `<prefix>/destination_id=<d>/org_id=<o>/date=<YYYY-MM-DD>/hour=<HH>/<window>-<chunk>.jsonl.gz`:
 * the date and hour are the window start's (UTC), the name its start and the chunk number, so a
 * retried window rewrites the same objects.
 */
export function objectKey(a: { prefix: string; destinationId: string; orgId: string; windowStartMs: number; chunk: number }): string {
  const iso = new Date(a.windowStartMs).toISOString();
  const parts = [
    `destination_id=${a.destinationId}`,
    `org_id=${a.orgId}`,
    `date=${iso.slice(0, 10)}`,
    `hour=${iso.slice(11, 13)}`,
    `${compactTime(a.windowStartMs)}-${String(a.chunk).padStart(4, '0')}.jsonl.gz`,
  ];
  return (a.prefix ? `${a.prefix}/` : '') + parts.join('/');
}

/** The reported `last_exported_cursor`: versioned and opaque (not an audit-log page token). */
export function encodeExportCursor(cursorIso: string): string {
  return 'v1.' + Buffer.from(cursorIso, 'utf8').toString('base64url');
}

/** Backoff after `failures` consecutive failed attempts: 30 s doubling, at most an hour. */
export function retryDelayMs(failures: number): number {
  return Math.min(3600_000, 30_000 * 2 ** Math.max(0, Math.min(failures - 1, 12)));
}
