/**
 * A session's network as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), built from
 * its retained `network` telemetry: one entry per request and one per redirect hop (the hop's
 * real 3xx status, headers and `redirectURL`), with the response's status, headers and MIME
 * type, Chromium's phase timings (blocked, dns, connect, ssl, send, wait, receive), and a load
 * failure as status 0 with Chromium's error text in `_error`. The session's `ResponseCapture`
 * adds when each body finished, its true size and, when asked, the body itself; request bodies
 * come from the telemetry (cut at 64 KiB there). Bodies are cut again at `maxBodyBytes`.
 */
import type { TelemetryEnvelope } from './telemetry-event.js';
import type { BodySkip, CapturedBody, FinishedResponse } from './response-capture.js';
import { harTimings, wireTimingOf, type HarTimings, type WireTiming } from './network-timing.js';
import { cutText, responseContent, SKIP_COMMENTS } from './har-body.js';

/** What the session's `ResponseCapture` knows of a request id. */
export interface ResponseLookup {
  finished(id: string): FinishedResponse | undefined;
  body(id: string): CapturedBody | undefined;
  skippedBody(id: string): BodySkip | undefined;
}

export interface HarOptions {
  /** Include bodies: request `postData`, and response `content.text` where captured. */
  bodies: boolean;
  /** Cap of each body, in UTF-8 bytes. */
  maxBodyBytes: number;
  creatorVersion: string;
  responses?: ResponseLookup;
}

type Header = { name: string; value: string };

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: Header[];
    queryString: Header[];
    headersSize: -1;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: Header[];
    content: { size: number; mimeType: string; text?: string; encoding?: 'base64'; comment?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: -1;
    _error?: string;
    _transferSize?: number;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  _resourceType?: string;
  _targetId?: string;
}

export interface HarDocument {
  log: { version: '1.2'; creator: { name: string; version: string }; pages: []; entries: HarEntry[]; comment?: string };
}

/** One entry while the events are read, with what its timings need. */
interface Pending {
  entry: HarEntry;
  requestId: string;
  startUs: number;
  issuedS?: number;
  timing?: WireTiming;
  respondedS?: number;
  answeredUs?: number;
  /** A redirect hop ends when its next hop is requested; the last hop's end comes from the capture. */
  hopEndS?: number;
  failed: boolean;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function headerList(h: unknown): Header[] {
  if (!h || typeof h !== 'object') return [];
  return Object.entries(h as Record<string, unknown>).map(([name, value]) => ({ name, value: String(value) }));
}

function queryOf(url: string): Header[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function headerValue(headers: Header[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

/** Chromium's protocol name (`http/1.1`, `h2`, `h3`) as a HAR httpVersion. */
function httpVersion(protocol: string): string {
  if (protocol === 'h2') return 'HTTP/2';
  if (protocol === 'h3' || protocol.startsWith('h3-')) return 'HTTP/3';
  return protocol.toUpperCase();
}

function requestEntry(tsUs: number, d: Record<string, unknown>, o: HarOptions): HarEntry {
  const url = str(d.url);
  const headers = headerList(d.headers);
  const post = str(d.post_data);
  return {
    startedDateTime: new Date(tsUs / 1000).toISOString(),
    time: 0,
    request: {
      method: str(d.method) || 'GET',
      url,
      httpVersion: '',
      cookies: [],
      headers,
      queryString: queryOf(url),
      headersSize: -1,
      bodySize: post ? Buffer.byteLength(post) : 0,
      ...(o.bodies && post
        ? { postData: { mimeType: headerValue(headers, 'content-type') ?? 'application/octet-stream', text: cutText(post, o.maxBodyBytes) } }
        : {}),
    },
    response: {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: -1, mimeType: '' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 },
    _resourceType: str(d.resource_type) || undefined,
    _targetId: str(d.target_id) || undefined,
  };
}

function answer(p: Pending, tsUs: number, d: Record<string, unknown>): void {
  const r = p.entry.response;
  const headers = headerList(d.headers);
  r.status = num(d.status) ?? 0;
  r.statusText = str(d.status_text);
  r.headers = headers;
  r.httpVersion = httpVersion(str(d.protocol));
  p.entry.request.httpVersion = r.httpVersion;
  r.content.mimeType = str(d.mime_type) || headerValue(headers, 'content-type') || '';
  const length = Number(headerValue(headers, 'content-length'));
  r.content.size = Number.isFinite(length) && length >= 0 ? length : -1;
  r.redirectURL = headerValue(headers, 'location') ?? '';
  p.timing = wireTimingOf(d.timing);
  p.respondedS = num(d.cdp_timestamp);
  p.answeredUs = tsUs;
}

/** Timings, size and body of an entry once every event is read. */
function finish(p: Pending, o: HarOptions): void {
  const { entry } = p;
  const last = p.hopEndS === undefined && !p.failed;
  const done = last ? o.responses?.finished(p.requestId) : undefined;
  if (done) {
    if (done.decodedBytes >= 0) entry.response.content.size = done.decodedBytes;
    entry.response._transferSize = done.encodedBytes;
  }
  const { timings, time } = harTimings({
    issuedS: p.issuedS,
    timing: p.timing,
    respondedS: p.respondedS,
    finishedS: p.hopEndS ?? done?.finishedS,
    fallbackWaitMs: Math.max(0, ((p.answeredUs ?? p.startUs) - p.startUs) / 1000),
  });
  entry.timings = timings;
  entry.time = time;
  if (!o.bodies || !last) return;
  const body = o.responses?.body(p.requestId);
  if (body) {
    entry.response.content = { ...entry.response.content, size: body.size, ...responseContent(body, o.maxBodyBytes) };
    return;
  }
  const skipped = o.responses?.skippedBody(p.requestId);
  if (skipped) entry.response.content.comment = SKIP_COMMENTS[skipped];
}

export function harOf(envelopes: readonly TelemetryEnvelope[], o: HarOptions, comment?: string): HarDocument {
  const all: Pending[] = [];
  /** The open entry of each request id: a redirect's next hop replaces it. */
  const open = new Map<string, Pending>();
  for (const { event: e } of envelopes) {
    if (e.category !== 'network' || !e.data) continue;
    const d = e.data;
    const requestId = str(d.request_id);
    if (!requestId) continue;
    if (e.type === 'network_request') {
      const prev = open.get(requestId);
      if (prev && d.is_redirect) {
        prev.entry.response.redirectURL = str(d.url);
        prev.hopEndS = num(d.cdp_timestamp) ?? prev.respondedS;
      }
      const p: Pending = { entry: requestEntry(e.ts, d, o), requestId, startUs: e.ts, issuedS: num(d.cdp_timestamp), failed: false };
      all.push(p);
      open.set(requestId, p);
      continue;
    }
    const p = open.get(requestId);
    if (!p) continue;
    if (e.type === 'network_response') answer(p, e.ts, d);
    else if (e.type === 'network_loading_failed') {
      p.entry.response.status = 0;
      p.entry.response.statusText = str(d.error_text);
      p.entry.response._error = str(d.error_text) || 'failed';
      p.failed = true;
      p.answeredUs = e.ts;
      p.timing = undefined;
    }
  }
  for (const p of all) finish(p, o);
  const entries = all.map((p) => p.entry);
  return { log: { version: '1.2', creator: { name: 'Browserdeck', version: o.creatorVersion }, pages: [], entries, ...(comment ? { comment } : {}) } };
}
