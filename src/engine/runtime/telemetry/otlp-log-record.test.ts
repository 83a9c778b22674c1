import { describe, expect, it } from 'vitest';
import { hrTimeOfMicros, logRecordOf, MAX_BODY_BYTES } from './otlp-log-record.js';
import { describeFailure } from './otlp-session-export.js';

describe('telemetry envelope as an OTLP log record', () => {
  it('names the event, carries the session id and the whole event; huge data goes without data', () => {
    const r = logRecordOf('s1', {
      seq: 7,
      event: { category: 'console', type: 'console_log', ts: 1_700_000_000_123_456, source: { kind: 'cdp' }, data: { text: 'hi' } },
    });
    expect(r.eventName).toBe('console_log');
    expect(r.timestamp).toEqual([1_700_000_000, 123_456_000]);
    expect(r.attributes).toMatchObject({ 'session.id': 's1', 'telemetry.category': 'console', 'telemetry.type': 'console_log', 'telemetry.seq': 7 });
    expect(r.body).toMatchObject({ type: 'console_log', data: { text: 'hi' } });
    const big = logRecordOf('s1', {
      seq: 8,
      event: { category: 'screenshot', type: 'screenshot', ts: 1, source: { kind: 'cdp' }, data: { png: 'x'.repeat(MAX_BODY_BYTES + 1) } },
    });
    expect(big.body).not.toHaveProperty('data');
    expect(big.attributes?.['telemetry.truncated']).toBe(true);
    expect(hrTimeOfMicros(1_500_000)).toEqual([1, 500_000_000]);
  });

  it('describes a failure without bodies', () => {
    expect(describeFailure({ code: 503, message: 'Service Unavailable', data: 'secret body' })).toBe('HTTP 503 Service Unavailable');
    expect(describeFailure({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' })).toMatch(/^ECONNREFUSED/);
  });
});
