/**
 * What an ended session leaves behind for support work (issue 28): its telemetry envelopes, the
 * log lines of its own services (browser, display, recorder, session), and its process list. One
 * record per session, cut to a byte bound before it is written: logs get at most a quarter of
 * the bound (oldest lines of the largest service go first), telemetry the rest (oldest events
 * go first, so the moments before the end survive). What was cut is counted in `dropped`.
 */
import type { ProcessInfo } from '../../../shared/wire/session-processes.js';
import type { ServiceLogLine } from '../service-logs.js';
import type { TelemetryEnvelope } from '../telemetry/telemetry-event.js';

export interface PostmortemRecord {
  session_id: string;
  ended_at: string;
  telemetry: TelemetryEnvelope[];
  logs: Record<string, ServiceLogLine[]>;
  processes: ProcessInfo[];
  dropped?: { telemetry_events: number; log_lines: number };
}

/** The default bound of one session's record (serialized JSON, before compression). */
export const POSTMORTEM_MAX_BYTES = 16 * 1024 * 1024;

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v)) + 1;

/** The record cut to at most `maxBytes` of JSON (close to it: separators are counted per item). */
export function boundRecord(r: PostmortemRecord, maxBytes = POSTMORTEM_MAX_BYTES): PostmortemRecord {
  const logs: Record<string, { lines: ServiceLogLine[]; sizes: number[]; bytes: number }> = {};
  let logBytes = 0;
  for (const [name, lines] of Object.entries(r.logs)) {
    const sizes = lines.map(size);
    const bytes = sizes.reduce((a, b) => a + b, 0);
    logs[name] = { lines: lines.slice(), sizes, bytes };
    logBytes += bytes;
  }
  let droppedLines = 0;
  const logBudget = Math.floor(maxBytes / 4);
  while (logBytes > logBudget) {
    const biggest = Object.values(logs).reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const cut = biggest.sizes.shift() ?? 0;
    biggest.lines.shift();
    biggest.bytes -= cut;
    logBytes -= cut;
    droppedLines++;
  }
  const fixed = size({ ...r, telemetry: [], logs: {} }) + logBytes;
  const sizes = r.telemetry.map(size);
  let telBytes = sizes.reduce((a, b) => a + b, 0);
  let first = 0;
  while (first < sizes.length && fixed + telBytes > maxBytes) telBytes -= sizes[first++];
  const out: PostmortemRecord = {
    ...r,
    telemetry: first ? r.telemetry.slice(first) : r.telemetry,
    logs: Object.fromEntries(Object.entries(logs).map(([k, v]) => [k, v.lines])),
  };
  if (first || droppedLines)
    out.dropped = { telemetry_events: first + (r.dropped?.telemetry_events ?? 0), log_lines: droppedLines + (r.dropped?.log_lines ?? 0) };
  return out;
}
