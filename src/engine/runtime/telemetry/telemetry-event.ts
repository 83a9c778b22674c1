/**
 * The telemetry wire shapes (wire reference §3.14, §5.1): an event `{category, type, ts (Unix
 * µs), source, data?, truncated?}` wrapped in an envelope `{seq, event}`, plus the one place
 * that bounds payload size — long strings and big arrays/objects are cut and the event is
 * marked `truncated`, so a page logging megabytes cannot blow up the buffer or a client.
 */
import { TELEMETRY_CATEGORIES, type TelemetryCategoryName } from '../../../shared/wire/telemetry-categories.js';
import {
  EVENT_CATEGORIES as WIRE_EVENT_CATEGORIES,
  type TelemetryEnvelope,
  type TelemetryEvent,
  type TelemetrySource,
} from '../../../shared/wire/session-telemetry.js';

export { TELEMETRY_CATEGORIES };
export type TelemetryCategory = TelemetryCategoryName;
export type EventCategory = TelemetryEvent['category'];
export const EVENT_CATEGORIES: readonly EventCategory[] = WIRE_EVENT_CATEGORIES;
export type SourceKind = TelemetrySource['kind'];
export type { TelemetryEnvelope, TelemetryEvent, TelemetrySource };

/** Limits for one event's data. */
export const LIMITS = { string: 8 * 1024, body: 64 * 1024, array: 100, keys: 200, depth: 8, png: 4 * 1024 * 1024 };

/** Bounds `data`; returns the bounded copy and whether anything was cut. */
export function boundData(data: Record<string, unknown>, stringLimits: Record<string, number> = {}): { data: Record<string, unknown>; truncated: boolean } {
  let truncated = false;
  const walk = (v: unknown, depth: number, key?: string): unknown => {
    if (typeof v === 'string') {
      const max = (key && stringLimits[key]) || LIMITS.string;
      if (v.length <= max) return v;
      truncated = true;
      return v.slice(0, max);
    }
    if (v === null || typeof v !== 'object') return v;
    if (depth >= LIMITS.depth) {
      truncated = true;
      return undefined;
    }
    if (Array.isArray(v)) {
      if (v.length > LIMITS.array) truncated = true;
      return v.slice(0, LIMITS.array).map((x) => walk(x, depth + 1));
    }
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      if (++n > LIMITS.keys) {
        truncated = true;
        break;
      }
      out[k] = walk(x, depth + 1, k);
    }
    return out;
  };
  return { data: walk(data, 0) as Record<string, unknown>, truncated };
}

/** Unix microseconds from milliseconds. */
export function microsFromMs(ms: number): number {
  return Math.round(ms * 1000);
}
