import { describe, expect, it } from 'vitest';
import { boundRecord, type PostmortemRecord } from './postmortem-record.js';

function record(events: number, lines: number): PostmortemRecord {
  return {
    session_id: 's1',
    ended_at: '2026-12-02T00:00:00.000Z',
    telemetry: Array.from({ length: events }, (_, i) => ({
      seq: i + 1,
      event: { category: 'console', type: 'console_log', ts: i, source: { kind: 'cdp' }, data: { text: 'x'.repeat(100) } },
    })) as PostmortemRecord['telemetry'],
    logs: {
      browser: Array.from({ length: lines }, (_, i) => ({ timestamp: 't', message: `line ${i} ${'y'.repeat(100)}` })),
      session: [{ timestamp: 't', message: 'ended' }],
    },
    processes: [],
  };
}

describe('boundRecord', () => {
  it('keeps a record under the bound as it is', () => {
    const r = record(10, 10);
    expect(boundRecord(r, 1024 * 1024)).toEqual(r);
  });

  it('cuts the oldest events and log lines first and stays within the bound', () => {
    const r = record(1000, 1000);
    const max = 64 * 1024;
    const b = boundRecord(r, max);
    expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThanOrEqual(max);
    expect(b.telemetry.at(-1)?.seq).toBe(1000);
    expect(b.telemetry[0].seq).toBeGreaterThan(1);
    expect(b.logs.browser.at(-1)?.message).toMatch(/^line 999 /);
    // The largest service loses lines; the one-line service keeps its line.
    expect(b.logs.session).toHaveLength(1);
    expect(b.dropped).toEqual({ telemetry_events: 1000 - b.telemetry.length, log_lines: 1000 - b.logs.browser.length });
  });
});
