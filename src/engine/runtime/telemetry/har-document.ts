/**
 * A session's network as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), built from
 * its retained `network` telemetry: one entry per request (a redirect's next hop is its own
 * entry), with the response's status, headers and MIME type, the time from request to response
 * as `wait`, and a load failure as status 0 with Chromium's error text. Telemetry keeps request
 * bodies (cut at 64 KiB) but no response bodies, so `postData` is the only body, on request, and
 * capped again at `maxBodyBytes`. Timings Chromium does not report per phase are -1.
 */
import type { TelemetryEnvelope } from './telemetry-event.js';

export interface HarOptions {
  /** Include request bodies (`postData`). */
  bodies: boolean;
  /** Cap of each body, in UTF-16 code units of the kept text. */
  maxBodyBytes: number;
  creatorVersion: string;
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
    content: { size: number; mimeType: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: -1;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: -1; dns: -1; connect: -1; ssl: -1; send: 0; wait: number; receive: 0 };
  _resourceType?: string;
  _targetId?: string;
}

export interface HarDocument {
  log: { version: '1.2'; creator: { name: string; version: string }; pages: []; entries: HarEntry[]; comment?: string };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

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

function contentType(headers: Header[]): string {
  return headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? 'application/octet-stream';
}

export function harOf(envelopes: readonly TelemetryEnvelope[], o: HarOptions, comment?: string): HarDocument {
  const entries: HarEntry[] = [];
  /** The open entry of each request id (a redirect replaces it) and its start in µs. */
  const open = new Map<string, { entry: HarEntry; startUs: number }>();
  for (const { event: e } of envelopes) {
    if (e.category !== 'network' || !e.data) continue;
    const d = e.data;
    const requestId = str(d.request_id);
    if (!requestId) continue;
    if (e.type === 'network_request') {
      const prev = open.get(requestId);
      const url = str(d.url);
      if (prev && d.is_redirect) {
        prev.entry.response.redirectURL = url;
        prev.entry.response.statusText ||= 'redirect';
      }
      const headers = headerList(d.headers);
      const post = str(d.post_data);
      const entry: HarEntry = {
        startedDateTime: new Date(e.ts / 1000).toISOString(),
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
          ...(o.bodies && post ? { postData: { mimeType: contentType(headers), text: post.slice(0, o.maxBodyBytes) } } : {}),
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
      entries.push(entry);
      open.set(requestId, { entry, startUs: e.ts });
      continue;
    }
    const current = open.get(requestId);
    if (!current) continue;
    const { entry, startUs } = current;
    const wait = Math.max(0, Math.round((e.ts - startUs) / 10) / 100);
    if (e.type === 'network_response') {
      const headers = headerList(d.headers);
      entry.response.status = typeof d.status === 'number' ? d.status : 0;
      entry.response.statusText = str(d.status_text);
      entry.response.headers = headers;
      entry.response.content.mimeType = str(d.mime_type) || contentType(headers);
      const length = Number(headers.find((h) => h.name.toLowerCase() === 'content-length')?.value);
      entry.response.content.size = Number.isFinite(length) ? length : -1;
    } else if (e.type === 'network_loading_failed') {
      entry.response.status = 0;
      entry.response.statusText = str(d.error_text);
      entry.response._error = str(d.error_text) || 'failed';
    } else continue;
    entry.timings.wait = wait;
    entry.time = wait;
  }
  return { log: { version: '1.2', creator: { name: 'Browserdeck', version: o.creatorVersion }, pages: [], entries, ...(comment ? { comment } : {}) } };
}
