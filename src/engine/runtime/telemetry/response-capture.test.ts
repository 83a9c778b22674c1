import { describe, expect, it } from 'vitest';
import { ResponseCapture, RESPONSE_CAPTURE_LIMITS } from './response-capture.js';
import { SessionTelemetry, type CategorySwitches } from './session-telemetry.js';
import { TELEMETRY_CATEGORIES } from './telemetry-event.js';

const small = { ...RESPONSE_CAPTURE_LIMITS, perBody: 8, bodyBytes: 20, bodies: 3, finished: 4, fetchMax: 100 };

describe('ResponseCapture', () => {
  it('remembers when each response finished and its decoded size', () => {
    const c = new ResponseCapture(small);
    c.dataReceived('a', 5);
    c.dataReceived('a', 7);
    expect(c.loadingFinished('a', 12.5, 300)).toEqual({ finishedS: 12.5, encodedBytes: 300, decodedBytes: 12 });
    expect(c.loadingFinished('b', 13, 10).decodedBytes).toBe(-1);
    expect(c.worthFetching(c.finished('a')!)).toBe(false); // 300 encoded bytes > fetchMax
    expect(c.worthFetching(c.finished('b')!)).toBe(true);
    for (const id of ['c', 'd', 'e']) c.loadingFinished(id, 1, 1);
    expect(c.finished('a')).toBeUndefined(); // oldest of five dropped (at most 4)
    expect(c.finished('e')).toBeDefined();
  });

  it('keeps the start of each body and its true size, within a byte and count budget, oldest dropped first', () => {
    const c = new ResponseCapture(small);
    c.keepBody('text', 'hello world, long', false);
    expect(c.body('text')).toMatchObject({ binary: false, size: 17 });
    expect(c.body('text')!.bytes.toString()).toBe('hello wo');
    c.keepBody('bin', Buffer.from([1, 2, 3]).toString('base64'), true);
    expect(c.body('bin')).toMatchObject({ binary: true, size: 3 });
    expect([...c.body('bin')!.bytes]).toEqual([1, 2, 3]);
    c.keepBody('x', 'xxxxxxxx', false); // 8 + 3 + 8 = 19 bytes, 3 bodies
    expect(c.bodyBytes).toBe(19);
    c.keepBody('y', 'yyyy', false); // a 4th body: the oldest goes
    expect(c.body('text')).toBeUndefined();
    expect(c.skippedBody('text')).toBe('evicted');
    expect(c.bodyBytes).toBe(15);
    c.keepBody('z', 'zzzzzzzz', false); // 23 bytes > 20: 'bin' goes too
    expect(c.body('bin')).toBeUndefined();
    expect(c.bodyBytes).toBe(20);
  });

  it('releases every body when the session ends and keeps none after', () => {
    const c = new ResponseCapture(small);
    c.loadingFinished('a', 1, 1);
    c.keepBody('a', 'abc', false);
    c.end();
    expect(c.bodyBytes).toBe(0);
    expect(c.body('a')).toBeUndefined();
    c.keepBody('late', 'abc', false);
    expect(c.body('late')).toBeUndefined();
    expect(c.finished('a')).toBeDefined();
  });
});

describe("a session's capture", () => {
  it('remembers no more finished responses than its telemetry buffer holds events', () => {
    const switches = Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, { enabled: true }])) as unknown as CategorySwitches;
    const tel = new SessionTelemetry('s', switches, { capacity: 3, maxBytes: 1 << 20 }, () => 0);
    for (const id of ['a', 'b', 'c', 'd']) tel.responses.loadingFinished(id, 1, 10);
    expect(tel.responses.finished('a')).toBeUndefined();
    expect(tel.responses.finished('d')).toMatchObject({ encodedBytes: 10 });
    const roomy = new SessionTelemetry('t', switches, { capacity: 1_000_000, maxBytes: 1 << 20 }, () => 0);
    expect(roomy.responses.limits.finished).toBe(RESPONSE_CAPTURE_LIMITS.finished);
  });
});
