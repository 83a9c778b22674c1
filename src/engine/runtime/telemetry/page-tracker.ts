/**
 * One attached page as the telemetry collector sees it: turns its CDP events into console,
 * network, page, interaction and captcha events with the event context (target, frame,
 * loader, navigation number, URL), and runs the "settled" heuristics — network idle after
 * 500 ms without requests in flight, layout settled 500 ms after load without a layout shift,
 * navigation settled when both hold.
 */
import { randomUUID } from 'node:crypto';
import type { Protocol } from 'devtools-protocol';
import type { CdpEventOf } from '../chromium/cdp-types.js';
import { NET_ERROR_HEADER } from '../proxy-forwarder/local-forwarder.js';
import type { SessionTelemetry } from './session-telemetry.js';
import type { EventCategory } from './telemetry-event.js';
import { LIMITS } from './telemetry-event.js';
import { TELEMETRY_BINDING } from './page-script.js';
import { resourceTiming } from './network-timing.js';
import { proxyErrorOf } from './proxy-error.js';

const QUIET_MS = 500;

interface Pending {
  kind: string;
  /** Opaque id of this visible challenge, shared by its captcha events (Kernel 0.97). */
  challengeId: string;
  sinceMs: number;
  host?: string;
  path?: string;
}

/** The CDP events a tracker turns into telemetry (the collector subscribes to exactly these). */
export const PAGE_EVENTS = [
  'Runtime.consoleAPICalled',
  'Runtime.exceptionThrown',
  'Runtime.bindingCalled',
  'Network.requestWillBeSent',
  'Network.responseReceived',
  'Network.loadingFinished',
  'Network.loadingFailed',
  'Page.frameNavigated',
  'Page.domContentEventFired',
  'Page.loadEventFired',
  'PerformanceTimeline.timelineEventAdded',
] as const;
export type PageEvent = CdpEventOf<(typeof PAGE_EVENTS)[number]>;

export class PageTracker {
  url = '';
  private frameId?: string;
  private loaderId?: string;
  private navSeq = 0;
  private readonly inflight = new Set<string>();
  private hadNetwork = false;
  private idleTimer?: NodeJS.Timeout;
  private layoutTimer?: NodeJS.Timeout;
  private loaded = false;
  private layoutSettled = false;
  private networkQuiet = true;
  private navigationSettled = false;
  private captcha?: Pending;
  /** Methods of requests in flight, for `proxy_error`. */
  private readonly methods = new Map<string, string>();

  constructor(
    readonly targetId: string,
    readonly cdpSessionId: string,
    private readonly tel: SessionTelemetry,
    private readonly now: () => number,
  ) {}

  private ctx(): Record<string, unknown> {
    return {
      target_id: this.targetId,
      target_type: 'page',
      frame_id: this.frameId,
      loader_id: this.loaderId,
      nav_seq: this.navSeq,
      url: this.url || undefined,
    };
  }

  private emit(category: EventCategory, type: string, event: string, data: Record<string, unknown>, limits?: Record<string, number>): void {
    this.tel.emit(category, type, { source: { kind: 'cdp', event, metadata: { target_id: this.targetId } }, data, stringLimits: limits });
  }

  handle(e: PageEvent): void {
    const { method, params: p } = e;
    switch (method) {
      case 'Runtime.consoleAPICalled': {
        const args = p.args.map(remoteValue);
        const text = args.map((a: unknown) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
        const isError = p.type === 'error' || p.type === 'assert';
        this.emit('console', isError ? 'console_error' : 'console_log', method, { ...this.ctx(), level: p.type, text, args, stack_trace: p.stackTrace });
        return;
      }
      case 'Runtime.exceptionThrown': {
        const d = p.exceptionDetails;
        const text = d.exception?.description ?? d.text ?? 'Uncaught exception';
        this.emit('console', 'console_error', method, {
          ...this.ctx(),
          level: 'error',
          text,
          line: d.lineNumber,
          column: d.columnNumber,
          source_url: d.url,
          stack_trace: d.stackTrace,
        });
        return;
      }
      case 'Runtime.bindingCalled':
        if (p.name === TELEMETRY_BINDING) this.onScript(String(p.payload ?? ''));
        return;
      case 'Network.requestWillBeSent':
        // A redirect arrives as the next hop's request, under the same id, carrying the 3xx
        // answer (CDP sends no responseReceived for it): that answer is the hop's response.
        if (p.redirectResponse) this.responded(method, p.requestId, p.type, p.redirectResponse, p.timestamp);
        this.requestStarted(p.requestId);
        if (typeof p.request?.method === 'string' && this.methods.size < 1000) this.methods.set(p.requestId, p.request.method);
        this.emit(
          'network',
          'network_request',
          method,
          {
            ...this.ctx(),
            request_id: p.requestId,
            method: p.request?.method,
            headers: p.request?.headers,
            post_data: p.request?.postData,
            document_url: p.documentURL,
            resource_type: p.type,
            initiator_type: p.initiator?.type,
            is_redirect: !!p.redirectResponse,
            redirect_url: p.redirectResponse?.url,
            url: p.request?.url,
            cdp_timestamp: p.timestamp,
          },
          { post_data: LIMITS.body },
        );
        return;
      case 'Network.responseReceived':
        this.responded(method, p.requestId, p.type, p.response, p.timestamp);
        return;
      case 'Network.loadingFinished':
        this.requestEnded(p.requestId);
        return;
      case 'Network.loadingFailed':
        this.requestEnded(p.requestId);
        this.emit('network', 'network_loading_failed', method, {
          ...this.ctx(),
          request_id: p.requestId,
          resource_type: p.type,
          error_text: p.errorText,
          canceled: p.canceled,
        });
        return;
      case 'Page.frameNavigated': {
        const f = p.frame;
        if (f.parentId) return;
        this.onNavigated(f.id, f.loaderId, f.url);
        this.emit('page', 'page_navigation', method, { frame_id: f.id, loader_id: f.loaderId, target_id: this.targetId, target_type: 'page', url: f.url });
        return;
      }
      case 'Page.domContentEventFired':
        this.emit('page', 'page_dom_content_loaded', method, { ...this.ctx(), cdp_timestamp: p.timestamp });
        return;
      case 'Page.loadEventFired':
        this.emit('page', 'page_load', method, { ...this.ctx(), cdp_timestamp: p.timestamp });
        this.loaded = true;
        this.armLayout();
        return;
      case 'PerformanceTimeline.timelineEventAdded':
        this.onTimeline(p.event);
        return;
    }
  }

  /** A response's headers arrived (`responseReceived`, or a redirect hop's 3xx). */
  private responded(method: string, requestId: string, type: string | undefined, r: Protocol.Network.Response, timestamp: number): void {
    // A jailed browser reaches sites through the engine's egress proxy; the proxy's own
    // failure answer is the network failure the browser would have seen connecting itself.
    const proxyError = proxyErrorOf(r.headers);
    if (proxyError)
      this.emit('network', 'proxy_error', method, {
        ...this.ctx(),
        ...proxyError,
        request_id: requestId,
        status: r.status,
        method: this.methods.get(String(requestId)),
        resource_type: type,
      });
    const netError = proxyNetError(r.headers);
    if (netError) {
      this.emit('network', 'network_loading_failed', method, {
        ...this.ctx(),
        request_id: requestId,
        resource_type: type,
        error_text: netError,
        canceled: false,
      });
      return;
    }
    this.emit('network', 'network_response', method, {
      ...this.ctx(),
      request_id: requestId,
      resource_type: type,
      status: r.status,
      status_text: r.statusText,
      mime_type: r.mimeType,
      headers: r.headers,
      url: r.url,
      // Beyond Kernel's fields, for the HAR export: the protocol and Chromium's phase timings.
      protocol: r.protocol,
      timing: resourceTiming(r.timing),
      cdp_timestamp: timestamp,
    });
  }

  private onTimeline(e: Protocol.PerformanceTimeline.TimelineEvent): void {
    if (e.type === 'layout-shift') {
      const s = e.layoutShiftDetails;
      this.emit('page', 'page_layout_shift', 'PerformanceTimeline.timelineEventAdded', {
        ...this.ctx(),
        source_frame_id: e.frameId,
        time: e.time,
        duration: e.duration,
        layout_shift_details: { value: s?.value, had_recent_input: s?.hadRecentInput },
      });
      if (this.loaded && !this.layoutSettled) this.armLayout();
    } else if (e.type === 'largest-contentful-paint') {
      const l = e.lcpDetails;
      this.emit('page', 'page_lcp', 'PerformanceTimeline.timelineEventAdded', {
        ...this.ctx(),
        source_frame_id: e.frameId,
        time: e.time,
        lcp_details: { render_time: l?.renderTime, load_time: l?.loadTime, size: l?.size, element_id: l?.elementId, url: l?.url, node_id: l?.nodeId },
      });
    }
  }

  private onScript(payload: string): void {
    let m: { type?: string; data?: Record<string, unknown> };
    try {
      m = JSON.parse(payload);
    } catch {
      return;
    }
    const data = m.data && typeof m.data === 'object' ? m.data : {};
    if (m.type === 'interaction_click' || m.type === 'interaction_key' || m.type === 'interaction_scroll_settled') {
      this.emit('interaction', m.type, 'Runtime.bindingCalled', { ...this.ctx(), ...data });
    } else if (m.type === 'captcha_detected' && !this.captcha) {
      this.captcha = {
        kind: String(data.captcha_type ?? 'other'),
        challengeId: randomUUID(),
        sinceMs: this.now(),
        host: data.website_host as string,
        path: data.website_path as string,
      };
      this.emit('captcha', 'captcha_detected', 'Runtime.bindingCalled', {
        ...this.ctx(),
        captcha_type: this.captcha.kind,
        challenge_id: this.captcha.challengeId,
        website_host: this.captcha.host,
        website_path: this.captcha.path,
      });
    } else if (m.type === 'captcha_solved') {
      this.finishCaptcha('success');
    }
  }

  /** A pending captcha ends: solved, or abandoned by navigating away, closing or ending. */
  finishCaptcha(status: 'success' | 'abandoned'): void {
    const c = this.captcha;
    if (!c) return;
    this.captcha = undefined;
    const duration_ms = Math.max(0, Math.round(this.now() - c.sinceMs));
    const where = { website_host: c.host, website_path: c.path };
    this.emit('captcha', 'captcha_solve_result', 'Runtime.bindingCalled', { captcha_type: c.kind, challenge_id: c.challengeId, status, duration_ms, ...where });
    // The visible challenge's outcome: its token appeared (solved — by whoever: this engine has
    // no solver), or the page went away first (abandoned).
    this.emit('captcha', 'captcha_challenge_result', 'Runtime.bindingCalled', {
      captcha_type: c.kind,
      challenge_id: c.challengeId,
      status: status === 'success' ? 'solved' : 'abandoned',
      duration_ms,
      ...where,
    });
  }

  private onNavigated(frameId: string, loaderId: string, url: string): void {
    if (loaderId && loaderId === this.loaderId) {
      this.url = url; // same-document navigation
      return;
    }
    this.finishCaptcha('abandoned');
    this.frameId = frameId;
    this.loaderId = loaderId;
    this.url = url;
    this.navSeq++;
    this.loaded = false;
    this.layoutSettled = false;
    this.navigationSettled = false;
    clearTimeout(this.layoutTimer);
  }

  private requestStarted(id: string): void {
    this.inflight.add(id);
    this.hadNetwork = true;
    this.networkQuiet = false;
    clearTimeout(this.idleTimer);
  }

  private requestEnded(id: string): void {
    this.methods.delete(id);
    if (!this.inflight.delete(id) || this.inflight.size > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inflight.size > 0 || !this.hadNetwork) return;
      this.hadNetwork = false;
      this.networkQuiet = true;
      this.emit('network', 'network_idle', 'Network.loadingFinished', this.ctx());
      this.maybeNavigationSettled();
    }, QUIET_MS);
    this.idleTimer.unref();
  }

  private armLayout(): void {
    clearTimeout(this.layoutTimer);
    this.layoutTimer = setTimeout(() => {
      if (this.layoutSettled) return;
      this.layoutSettled = true;
      this.emit('page', 'page_layout_settled', 'PerformanceTimeline.timelineEventAdded', this.ctx());
      this.maybeNavigationSettled();
    }, QUIET_MS);
    this.layoutTimer.unref();
  }

  private maybeNavigationSettled(): void {
    // Without the network category nothing tracks requests, so the layout alone decides.
    const networkOk = this.networkQuiet || !this.tel.enabled('network');
    if (this.navigationSettled || !this.layoutSettled || !networkOk) return;
    this.navigationSettled = true;
    this.emit('page', 'page_navigation_settled', 'Page.loadEventFired', this.ctx());
  }

  dispose(): void {
    this.methods.clear();
    clearTimeout(this.idleTimer);
    clearTimeout(this.layoutTimer);
  }
}

/** A CDP RemoteObject as plain JSON-able data. */
function remoteValue(o: Protocol.Runtime.RemoteObject): unknown {
  if (!o || typeof o !== 'object') return o;
  if ('value' in o) return o.value;
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  if (o.preview?.properties) {
    const props: Record<string, unknown> = {};
    for (const p of o.preview.properties) props[p.name] = p.type === 'number' ? Number(p.value) : p.type === 'boolean' ? p.value === 'true' : p.value;
    return o.subtype === 'array' ? Object.values(props) : props;
  }
  return o.description ?? o.type;
}

function proxyNetError(headers: Record<string, string> | undefined): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === NET_ERROR_HEADER) return v;
  return undefined;
}
