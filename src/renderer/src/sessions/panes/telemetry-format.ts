/** Telemetry envelopes (wire §3.14, §5.1): types and the one-line summary the console shows. */

import { DEFAULT_ON_CATEGORIES, TELEMETRY_CATEGORIES } from '../../../../shared/wire/telemetry-categories';
import { EVENT_CATEGORIES, type TelemetryEnvelope, type TelemetryEvent } from '../../../../shared/wire/session-telemetry';

export type { TelemetryEvent };
export type Envelope = TelemetryEnvelope;
export const CATEGORIES = TELEMETRY_CATEGORIES;
/** Shown in the filters too (`monitor` is not configurable on the session). */
export const VIEW_CATEGORIES = EVENT_CATEGORIES;
export const DEFAULT_ON: ReadonlySet<string> = new Set(DEFAULT_ON_CATEGORIES);

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}

export function summary(e: TelemetryEvent): string {
  const d = e.data ?? {};
  switch (e.category) {
    case 'console':
      return str(d.text) || (Array.isArray(d.args) ? d.args.map(str).join(' ') : '');
    case 'network':
      return [str(d.method), str(d.url), d.status !== undefined ? str(d.status) : '', str(d.error_text)].filter(Boolean).join(' ');
    case 'page':
      return str(d.url) || str(d.title);
    case 'interaction':
      return [str(d.key), str(d.selector), str(d.text)].filter(Boolean).join(' ');
    case 'screenshot':
      return d.png ? `screenshot (${Math.round((str(d.png).length * 0.75) / 1024)} KB)` : 'screenshot';
    default: {
      const s = JSON.stringify(d);
      return s === '{}' ? '' : s.length > 300 ? s.slice(0, 300) + '…' : s;
    }
  }
}

export function eventTime(ts: number): string {
  const d = new Date(ts / 1000);
  return Number.isNaN(d.getTime()) ? String(ts) : `${d.toLocaleTimeString(undefined, { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** For search: the event as text, without a screenshot's base64. */
export function searchable(e: TelemetryEvent): string {
  const data = e.category === 'screenshot' ? {} : e.data;
  return `${e.category} ${e.type} ${JSON.stringify(data ?? {})}`.toLowerCase();
}
