import { describe, expect, it } from 'vitest';
import { harOf, type HarOptions } from './har-document.js';
import { ResponseCapture } from './response-capture.js';
import type { TelemetryEnvelope } from './telemetry-event.js';

let seq = 0;
const ev = (type: string, tsMs: number, data: Record<string, unknown>): TelemetryEnvelope => ({
  seq: ++seq,
  event: { category: 'network', type, ts: tsMs * 1000, source: { kind: 'cdp' }, data },
});
const timing = (requestTime: number, headersEnd: number) => ({
  request_time: requestTime,
  dns_start: -1,
  dns_end: -1,
  connect_start: -1,
  connect_end: -1,
  ssl_start: -1,
  ssl_end: -1,
  send_start: 1,
  send_end: 2,
  receive_headers_end: headersEnd,
});

// A load through two redirects, a 404, and a refused connection, as the page tracker records them.
const EVENTS = [
  ev('network_request', 1000, { request_id: 'doc', url: 'http://a.test/old', method: 'GET', cdp_timestamp: 10 }),
  ev('network_response', 1010, {
    request_id: 'doc',
    url: 'http://a.test/old',
    status: 302,
    status_text: 'Found',
    headers: { Location: '/mid' },
    protocol: 'http/1.1',
    timing: timing(10, 8),
    cdp_timestamp: 10.008,
  }),
  ev('network_request', 1010, {
    request_id: 'doc',
    url: 'http://a.test/mid',
    method: 'GET',
    is_redirect: true,
    redirect_url: 'http://a.test/old',
    cdp_timestamp: 10.01,
  }),
  ev('network_response', 1020, {
    request_id: 'doc',
    url: 'http://a.test/mid',
    status: 301,
    status_text: 'Moved Permanently',
    headers: { location: 'http://a.test/new' },
    timing: timing(10.01, 5),
    cdp_timestamp: 10.015,
  }),
  ev('network_request', 1020, { request_id: 'doc', url: 'http://a.test/new', method: 'GET', is_redirect: true, cdp_timestamp: 10.02 }),
  ev('network_response', 1030, {
    request_id: 'doc',
    url: 'http://a.test/new',
    status: 200,
    status_text: 'OK',
    mime_type: 'text/html',
    headers: {},
    timing: timing(10.02, 6),
    cdp_timestamp: 10.026,
  }),
  ev('network_request', 1040, { request_id: 'img', url: 'http://a.test/x.png', method: 'GET', cdp_timestamp: 10.04 }),
  ev('network_response', 1045, { request_id: 'img', status: 404, status_text: 'Not Found', mime_type: 'text/plain', headers: { 'content-length': '2' } }),
  ev('network_request', 1050, {
    request_id: 'api',
    url: 'http://b.test/api',
    method: 'POST',
    post_data: 'héllo wörld',
    headers: { 'Content-Type': 'text/plain' },
  }),
  ev('network_loading_failed', 1075, { request_id: 'api', error_text: 'net::ERR_CONNECTION_REFUSED' }),
  ev('network_request', 1080, { request_id: 'bin', url: 'http://a.test/b.bin', method: 'GET' }),
  ev('network_response', 1081, { request_id: 'bin', status: 200, mime_type: 'application/octet-stream', headers: {} }),
  ev('network_request', 1090, { request_id: 'big', url: 'http://a.test/video', method: 'GET' }),
  ev('network_response', 1091, { request_id: 'big', status: 200, mime_type: 'video/mp4', headers: {} }),
];

function capture(): ResponseCapture {
  const c = new ResponseCapture();
  c.dataReceived('doc', 11);
  c.loadingFinished('doc', 10.03, 140);
  c.keepBody('doc', '<p>ünï</p>', false);
  c.keepBody('bin', Buffer.from([0, 1, 2, 3, 255]).toString('base64'), true);
  c.loadingFinished('big', 11, 50_000_000);
  c.skipBody('big', 'too_large');
  return c;
}

const opts = (o: Partial<HarOptions> = {}): HarOptions => ({ bodies: false, maxBodyBytes: 65536, creatorVersion: 't', responses: capture(), ...o });

describe('harOf', () => {
  it('has one entry per redirect hop with its real 3xx status and redirectURL', () => {
    const e = harOf(EVENTS, opts()).log.entries;
    expect(e.map((x) => `${x.request.url} ${x.response.status} ${x.response.redirectURL}`)).toEqual([
      'http://a.test/old 302 http://a.test/mid',
      'http://a.test/mid 301 http://a.test/new',
      'http://a.test/new 200 ',
      'http://a.test/x.png 404 ',
      'http://b.test/api 0 ',
      'http://a.test/b.bin 200 ',
      'http://a.test/video 200 ',
    ]);
    expect(e[0].response).toMatchObject({ statusText: 'Found', httpVersion: 'HTTP/1.1' });
    expect(e[4].response).toMatchObject({ _error: 'net::ERR_CONNECTION_REFUSED', statusText: 'net::ERR_CONNECTION_REFUSED' });
  });

  it("times each phase from Chromium's timing, a hop ending where its next hop starts", () => {
    const e = harOf(EVENTS, opts()).log.entries;
    // Hop 1: sent 1-2 ms, headers at 8 ms, next hop requested at 10 ms.
    expect(e[0].timings).toEqual({ blocked: 1, dns: -1, connect: -1, ssl: -1, send: 1, wait: 6, receive: 2 });
    expect(e[0].time).toBe(10);
    // Last hop: headers at 6 ms, body finished 10 ms after its request_time (the capture).
    expect(e[2].timings).toMatchObject({ send: 1, wait: 4, receive: 4 });
    expect(e[2].response.content.size).toBe(11);
    expect(e[2].response._transferSize).toBe(140);
    // No Chromium timing: request to answer on the engine clock.
    expect(e[3]).toMatchObject({ time: 5, timings: { wait: 5 } });
    expect(e[4]).toMatchObject({ time: 25, timings: { wait: 25 } });
    for (const x of e) expect(x.time).toBeGreaterThanOrEqual(0);
  });

  it('carries bodies only when asked: text, base64 binary, each cut with a comment, or why there is none', () => {
    expect(harOf(EVENTS, opts()).log.entries.some((x) => x.request.postData || x.response.content.text !== undefined)).toBe(false);
    const e = harOf(EVENTS, opts({ bodies: true })).log.entries;
    expect(e[2].response.content).toEqual({ size: 12, mimeType: 'text/html', text: '<p>ünï</p>' });
    expect(e[0].response.content.text).toBeUndefined();
    expect(e[4].request.postData).toEqual({ mimeType: 'text/plain', text: 'héllo wörld' });
    expect(e[5].response.content).toMatchObject({ size: 5, encoding: 'base64', text: Buffer.from([0, 1, 2, 3, 255]).toString('base64') });
    expect(e[6].response.content.comment).toMatch(/larger than/);
    // Cut at 5 bytes: 'ü' is two bytes, so '<p>ü' (5 bytes) and never half a character.
    const cut = harOf(EVENTS, opts({ bodies: true, maxBodyBytes: 5 })).log.entries;
    expect(cut[2].response.content).toMatchObject({ size: 12, text: '<p>ü', comment: 'body cut at 5 of 12 bytes' });
    expect(cut[4].request.postData?.text).toBe('héll');
    expect(cut[5].response.content).toMatchObject({ size: 5, text: Buffer.from([0, 1, 2, 3, 255]).toString('base64') });
    const four = harOf(EVENTS, opts({ bodies: true, maxBodyBytes: 4 })).log.entries;
    expect(four[2].response.content.text).toBe('<p>');
    expect(four[5].response.content).toMatchObject({ text: Buffer.from([0, 1, 2, 3]).toString('base64'), comment: 'body cut at 4 of 5 bytes' });
  });
});
