/**
 * One telemetry envelope as an OpenTelemetry log record: the event type is the record's
 * `eventName`, the whole event its body, and category, type, seq and session id attributes a
 * collector can filter on (the session id is also on the resource). Events whose body would be
 * huge (a screenshot's PNG) are sent without their `data`, marked `telemetry.truncated`.
 */
import type { LogRecord } from '@opentelemetry/api-logs';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { TelemetryEnvelope } from './telemetry-event.js';

/** Bodies above this many bytes of JSON go without `data`. */
export const MAX_BODY_BYTES = 256 * 1024;

/** Unix µs → OpenTelemetry HrTime [seconds, nanoseconds]. */
export function hrTimeOfMicros(us: number): [number, number] {
  const s = Math.floor(us / 1e6);
  return [s, Math.round((us - s * 1e6) * 1000)];
}

export function logRecordOf(sessionId: string, env: TelemetryEnvelope): LogRecord {
  const e = env.event;
  let body: Record<string, unknown> = { ...e };
  let truncated = !!e.truncated;
  if (e.data && JSON.stringify(e.data).length > MAX_BODY_BYTES) {
    body = { ...e, data: undefined, truncated: true };
    delete body.data;
    truncated = true;
  }
  const attributes: Record<string, string | number | boolean> = {
    'session.id': sessionId,
    'telemetry.category': e.category,
    'telemetry.type': e.type,
    'telemetry.seq': env.seq,
    'telemetry.source.kind': e.source.kind,
  };
  if (e.source.event) attributes['telemetry.source.event'] = e.source.event;
  if (truncated) attributes['telemetry.truncated'] = true;
  return {
    eventName: e.type,
    timestamp: hrTimeOfMicros(e.ts),
    severityNumber: e.category === 'monitor' || e.type === 'service_crashed' ? SeverityNumber.WARN : SeverityNumber.INFO,
    body: body as LogRecord['body'],
    attributes,
  };
}
