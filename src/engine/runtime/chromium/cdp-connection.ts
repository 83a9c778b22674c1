/**
 * A minimal CDP client over one WebSocket: request/response by id plus event listeners.
 * The engine uses it for its own control connection to a session's browser (readiness,
 * download directory, graceful close); clients get the full protocol through the CDP proxy.
 */
import { WebSocket } from 'ws';
import type { CdpEvent, CdpEventParams, CdpMethod, CdpParams, CdpResult } from './cdp-types.js';

type Listener = (params: unknown, sessionId?: string) => void;

export interface SendOptions {
  sessionId?: string;
  timeoutMs?: number;
}

export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, Set<Listener>>();
  readonly closed: Promise<void>;

  private constructor(private readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('message', (data) => this.onMessage(data.toString()));
    void this.closed.then(() => {
      for (const p of this.pending.values()) p.reject(new Error('CDP connection closed'));
      this.pending.clear();
    });
  }

  static connect(url: string, timeoutMs = 10_000): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`CDP connect to ${url} timed out`));
      }, timeoutMs);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new CdpConnection(ws));
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** A protocol command, its parameters and result typed from devtools-protocol. */
  send<M extends CdpMethod>(method: M, params?: CdpParams<M>, opts: SendOptions = {}): Promise<CdpResult<M>> {
    return this.sendRaw(method, params ?? {}, opts) as Promise<CdpResult<M>>;
  }

  /**
   * A command the protocol mapping does not list (none is sent today but the escape hatch
   * keeps `send` strict): the caller narrows the `unknown` result itself.
   */
  sendRaw(method: string, params: object = {}, opts: SendOptions = {}): Promise<unknown> {
    if (!this.isOpen) return Promise.reject(new Error('CDP connection closed'));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`CDP ${method} timed out`));
      }, opts.timeoutMs ?? 10_000);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ id, method, params, ...(opts.sessionId ? { sessionId: opts.sessionId } : {}) }));
    });
  }

  /** Listens to a protocol event (typed from devtools-protocol); returns the unsubscriber. */
  on<E extends CdpEvent>(event: E, fn: (params: CdpEventParams<E>, sessionId?: string) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    // Stored untyped: onMessage dispatches by name, so a listener only ever gets its own event.
    const listener = fn as Listener;
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
  }

  private onMessage(text: string): void {
    let msg: { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: Record<string, unknown>; sessionId?: string };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`CDP error: ${msg.error.message}`));
      else p.resolve(msg.result);
    } else if (msg.method) {
      for (const fn of this.listeners.get(msg.method) ?? []) fn(msg.params ?? {}, msg.sessionId);
    }
  }
}
