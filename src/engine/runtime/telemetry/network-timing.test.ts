import { describe, expect, it } from 'vitest';
import { harTimings, resourceTiming, wireTimingOf } from './network-timing.js';

// A fresh HTTPS connection as Chromium reports it: request_time in s, the rest ms after it.
const CDP = {
  requestTime: 100,
  proxyStart: -1,
  proxyEnd: -1,
  dnsStart: 2,
  dnsEnd: 7,
  connectStart: 7,
  connectEnd: 30,
  sslStart: 15,
  sslEnd: 30,
  sendStart: 31,
  sendEnd: 32,
  receiveHeadersEnd: 82,
};

describe('network timing', () => {
  it('keeps the ResourceTiming fields a HAR needs, and refuses a partial one', () => {
    const t = resourceTiming(CDP)!;
    expect(t).toEqual({
      request_time: 100,
      dns_start: 2,
      dns_end: 7,
      connect_start: 7,
      connect_end: 30,
      ssl_start: 15,
      ssl_end: 30,
      send_start: 31,
      send_end: 32,
      receive_headers_end: 82,
    });
    expect(wireTimingOf(t)).toBe(t);
    expect(resourceTiming({ requestTime: 1 })).toBeUndefined();
    expect(wireTimingOf({ request_time: 1 })).toBeUndefined();
  });

  it('splits a request into HAR phases that add up to its time', () => {
    const { timings, time } = harTimings({ issuedS: 99.99, timing: resourceTiming(CDP), respondedS: 100.082, finishedS: 100.1, fallbackWaitMs: 999 });
    // 10 ms queued before request_time, 2 ms stalled before DNS.
    expect(timings).toEqual({ blocked: 12, dns: 5, connect: 23, ssl: 15, send: 1, wait: 50, receive: 18 });
    expect(time).toBe(12 + 5 + 23 + 1 + 50 + 18);
  });

  it('a reused connection has no dns/connect; without Chromium timing the engine clock is the wait', () => {
    const reused = { ...CDP, dnsStart: -1, dnsEnd: -1, connectStart: -1, connectEnd: -1, sslStart: -1, sslEnd: -1 };
    const r = harTimings({ timing: resourceTiming(reused), finishedS: 100.09, fallbackWaitMs: 999 });
    expect(r.timings).toMatchObject({ blocked: 31, dns: -1, connect: -1, ssl: -1, send: 1, wait: 50, receive: 8 });
    expect(harTimings({ fallbackWaitMs: 12.5 })).toEqual({
      timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 12.5, receive: 0 },
      time: 12.5,
    });
  });
});
