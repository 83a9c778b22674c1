/**
 * What the event timeline shows of a session's telemetry: navigations, console messages,
 * network requests (one mark per request, at its answer, with status and time taken), clicks
 * and keys, API and CDP calls, crashes. Pure: turns envelopes into marks on a time axis.
 */
import { summary, type Envelope } from '../panes/telemetry-format';

export const TIMELINE_CATEGORIES = ['page', 'console', 'network', 'interaction', 'control', 'connection', 'system'] as const;
export type TimelineCategory = (typeof TIMELINE_CATEGORIES)[number];

export interface TimelineMark {
  seq: number;
  category: TimelineCategory;
  type: string;
  /** Milliseconds since the epoch. */
  atMs: number;
  label: string;
  /** A failed request, a console error, a crash. */
  bad: boolean;
}

const isCategory = (c: string): c is TimelineCategory => (TIMELINE_CATEGORIES as readonly string[]).includes(c);

/** Marks, oldest first. Network requests are marked once, when answered (or failed). */
export function timelineMarks(envelopes: readonly Envelope[]): TimelineMark[] {
  const started = new Map<string, { atMs: number; method: string; url: string }>();
  const out: TimelineMark[] = [];
  for (const { seq, event: e } of envelopes) {
    if (!isCategory(e.category)) continue;
    const atMs = e.ts / 1000;
    const d = e.data ?? {};
    if (e.category === 'network') {
      const id = typeof d.request_id === 'string' ? d.request_id : '';
      if (e.type === 'network_request') {
        started.set(id, { atMs, method: String(d.method ?? 'GET'), url: String(d.url ?? '') });
        continue;
      }
      if (e.type !== 'network_response' && e.type !== 'network_loading_failed') continue;
      const req = started.get(id);
      const took = req ? ` (${Math.round(atMs - req.atMs)} ms)` : '';
      const failed = e.type === 'network_loading_failed';
      const what = failed ? String(d.error_text ?? 'failed') : String(d.status ?? '');
      const status = typeof d.status === 'number' ? d.status : 0;
      out.push({
        seq,
        category: 'network',
        type: e.type,
        atMs,
        label: `${req?.method ?? ''} ${req?.url ?? String(d.url ?? '')} → ${what}${took}`.trim(),
        bad: failed || status >= 400,
      });
      continue;
    }
    const bad = e.type === 'console_error' || e.type === 'service_crashed' || e.type.includes('crash');
    out.push({ seq, category: e.category, type: e.type, atMs, label: `${e.type}: ${summary(e)}`.slice(0, 300), bad });
  }
  return out.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
}

/** `m:ss.s` from milliseconds. */
export function offsetLabel(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}
