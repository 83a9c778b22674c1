/**
 * A request's timing, from Chromium's `Network.ResourceTiming` to HAR 1.2's phases. The
 * telemetry collector keeps the few ResourceTiming fields a HAR needs on `network_response`
 * (`resourceTiming`); the HAR export turns them back into blocked / dns / connect / ssl / send /
 * wait / receive (`harTimings`), the way Chrome DevTools' own HAR export reads them.
 */

/** Chromium's ResourceTiming, cut to what a HAR needs: `request_time` in seconds, the rest ms after it (-1: did not happen). */
export interface WireTiming {
  request_time: number;
  dns_start: number;
  dns_end: number;
  connect_start: number;
  connect_end: number;
  ssl_start: number;
  ssl_end: number;
  send_start: number;
  send_end: number;
  receive_headers_end: number;
}

const FIELDS: ReadonlyArray<[keyof WireTiming, string]> = [
  ['request_time', 'requestTime'],
  ['dns_start', 'dnsStart'],
  ['dns_end', 'dnsEnd'],
  ['connect_start', 'connectStart'],
  ['connect_end', 'connectEnd'],
  ['ssl_start', 'sslStart'],
  ['ssl_end', 'sslEnd'],
  ['send_start', 'sendStart'],
  ['send_end', 'sendEnd'],
  ['receive_headers_end', 'receiveHeadersEnd'],
];

/** The wire form of a CDP `Response.timing` (undefined when Chromium sent none, e.g. a cached or data: response). */
export function resourceTiming(t: unknown): WireTiming | undefined {
  if (!t || typeof t !== 'object') return undefined;
  const src = t as Record<string, unknown>;
  const out = {} as WireTiming;
  for (const [wire, cdp] of FIELDS) {
    const v = src[cdp];
    if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
    out[wire] = v;
  }
  return out;
}

/** A telemetry event's `timing`, checked (it went through the wire and may be from an older engine). */
export function wireTimingOf(v: unknown): WireTiming | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const src = v as Record<string, unknown>;
  return FIELDS.every(([k]) => typeof src[k] === 'number') ? (src as unknown as WireTiming) : undefined;
}

export interface HarTimings {
  blocked: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  wait: number;
  receive: number;
}

export interface TimingInput {
  /** Chromium's monotonic seconds when the request was issued (`network_request.cdp_timestamp`). */
  issuedS?: number;
  timing?: WireTiming;
  /** Monotonic seconds when the response headers were seen (`network_response.cdp_timestamp`). */
  respondedS?: number;
  /** Monotonic seconds when the body finished loading (the next hop's request, for a redirect). */
  finishedS?: number;
  /** Request to answer in ms on the engine's clock: the whole time when Chromium gave no timing. */
  fallbackWaitMs: number;
}

const ms = (x: number): number => Math.round(x * 1000) / 1000;
const leastNonNegative = (...xs: number[]): number | undefined => {
  const ok = xs.filter((x) => x >= 0);
  return ok.length ? Math.min(...ok) : undefined;
};

/** HAR phases (ms; -1 for a phase that did not happen) and `time`, their sum (ssl is inside connect). */
export function harTimings(i: TimingInput): { timings: HarTimings; time: number } {
  const t = i.timing;
  let timings: HarTimings;
  if (!t) {
    const receive = i.finishedS !== undefined && i.respondedS !== undefined ? Math.max(0, (i.finishedS - i.respondedS) * 1000) : 0;
    timings = { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: i.fallbackWaitMs, receive };
  } else {
    // Queued in the browser before the network stack took it, then stalled until its first phase.
    const queued = i.issuedS !== undefined ? Math.max(0, (t.request_time - i.issuedS) * 1000) : 0;
    const firstPhase = leastNonNegative(t.dns_start, t.connect_start, t.send_start) ?? 0;
    const span = (a: number, b: number): number => (a >= 0 && b >= 0 ? Math.max(0, b - a) : -1);
    const headersAt = t.receive_headers_end >= 0 ? t.receive_headers_end : i.respondedS !== undefined ? (i.respondedS - t.request_time) * 1000 : t.send_end;
    const finishedAt = i.finishedS !== undefined ? (i.finishedS - t.request_time) * 1000 : headersAt;
    timings = {
      blocked: queued + firstPhase,
      dns: span(t.dns_start, t.dns_end),
      connect: span(t.connect_start, t.connect_end),
      ssl: span(t.ssl_start, t.ssl_end),
      send: Math.max(0, span(t.send_start, t.send_end)),
      wait: Math.max(0, headersAt - Math.max(t.send_end, 0)),
      receive: Math.max(0, finishedAt - headersAt),
    };
  }
  const rounded = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, v < 0 ? -1 : ms(v)])) as unknown as HarTimings;
  const { ssl: _inConnect, ...counted } = rounded;
  const time = ms(Object.values(counted).reduce((sum, v) => sum + Math.max(0, v), 0));
  return { timings: rounded, time };
}
