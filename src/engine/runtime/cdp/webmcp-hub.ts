/**
 * The WebMCP tools of one session's browser, across every tab and frame, over Chromium's CDP
 * `WebMCP` domain (Chromium ≥ 146 with the WebMCP features on, chromium-flags.ts). It rides on
 * the session's shared engine connection (`SessionCdp`): on first use it attaches to every page
 * (and each new one), auto-attaches to their out-of-process frames, and enables `WebMCP` on each
 * attachment, whose `toolsAdded`/`toolsRemoved` events keep a live registry. Every registration
 * gets an opaque `tool_ref` that dies with it (removal, document gone, browser replaced).
 * Invocations are `WebMCP.invokeTool` answered by the matching `toolResponded` event.
 *
 * Everything here comes from pages: names, schemas and outputs are passed on, never interpreted.
 */
import { randomBytes } from 'node:crypto';
import type { SessionHandle } from '../session/session-handle.js';
import type { CdpConnection } from '../chromium/cdp-connection.js';
import type { Slot } from '../session/session-scope.js';
import { SessionCdpSlot, type SessionCdp } from './session-cdp.js';
import type { CdpMethod, CdpParams, CdpResult } from '../chromium/cdp-types.js';

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
}

/** One attachment with the WebMCP domain on: a page, or a frame in another process under one. */
interface Attachment {
  sessionId: string;
  targetId: string;
  /** The page (tab) target this attachment belongs to. */
  tabId: string;
}

/** What a page registered, as the protocol's `WebMCP.Tool` says it. */
interface CdpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnly?: boolean; untrustedContent?: boolean; consequential?: boolean; autosubmit?: boolean };
  frameId: string;
}

export interface LiveTool {
  ref: string;
  sessionId: string;
  tabId: string;
  tool: CdpTool;
}

/** One document of a tab: the top-level one (`frameId` = the tab's id) or a frame's. */
export interface TabDocument {
  /** The hub attachment that runs code in it. */
  sessionId: string;
  frameId: string;
  loaderId: string;
  url: string;
}

export interface ToolResponse {
  status: string;
  output?: unknown;
  errorText?: string;
}

/** Chromium lacks the domain or has the feature off: every WebMCP route answers 422. */
export class WebMcpUnavailable extends Error {}
/** The invocation started but no result could be seen (timeout, tab or frame gone): 504. */
export class OutcomeUnknown extends Error {
  constructor(
    message: string,
    readonly invocationId?: string,
  ) {
    super(message);
  }
}

/** Set once any browser of this engine answered that it lacks WebMCP (entitlements say so). */
let unavailableSeen = false;
/** Results kept for invocations whose event raced ahead of the command's answer. */
const RESPONSE_BUFFER = 256;

export class WebMcpHub {
  private readonly cdp: SessionCdp;
  private conn?: Promise<CdpConnection>;
  private readonly attachments = new Map<string, Attachment>();
  /** Attach in flight or done, by target id (each target once per connection). */
  private readonly targets = new Map<string, Promise<void>>();
  private readonly tools = new Map<string, LiveTool>();
  private readonly refs = new Map<string, LiveTool>();
  private readonly responses = new Map<string, ToolResponse>();
  private readonly waiters = new Map<string, (r: ToolResponse) => void>();
  private readonly detachWaiters = new Map<string, Set<() => void>>();
  /** Monotonic small numbers for tab and frame ids, per browser process (reset on restart). */
  private readonly numbers = new Map<string, number>();
  private counter = 0;
  private unavailable?: string;
  private closed = false;
  private readonly offReset: () => void;

  constructor(private readonly handle: SessionHandle) {
    this.cdp = handle.scope.get(SessionCdpSlot);
    this.offReset = this.cdp.onReset(() => this.forget());
  }

  static unavailableSeen(): boolean {
    return unavailableSeen;
  }

  /** Every live registration, after every open page has been attached and enabled. */
  async list(): Promise<{ tools: LiveTool[]; targets: Map<string, TargetInfo> }> {
    const c = await this.connection();
    const { targetInfos } = await c.send('Target.getTargets');
    await Promise.all(targetInfos.filter((t) => t.type === 'page').map((t) => this.attachPage(c, t.targetId)));
    this.throwIfUnavailable();
    return { tools: [...this.tools.values()], targets: new Map(targetInfos.map((t) => [t.targetId, t])) };
  }

  /** The number for a tab or frame id (stable for this browser process). */
  numberOf(key: string): number {
    let n = this.numbers.get(key);
    if (n === undefined) this.numbers.set(key, (n = ++this.counter));
    return n;
  }

  /** The window a tab is in (Chromium's window id), or 0 when it has none (closing). */
  async windowOf(tabId: string): Promise<number> {
    const c = await this.connection();
    return c
      .send('Browser.getWindowForTarget', { targetId: tabId })
      .then((r) => r.windowId)
      .catch(() => 0);
  }

  /** URLs of the frames one attachment renders (its in-process subframes included). */
  async frameUrls(sessionId: string): Promise<Map<string, string>> {
    const c = await this.connection();
    const urls = new Map<string, string>();
    type Node = { frame: { id: string; url: string; urlFragment?: string }; childFrames?: Node[] };
    const walk = (n: Node) => {
      urls.set(n.frame.id, n.frame.url);
      n.childFrames?.forEach(walk);
    };
    await c
      .send('Page.getFrameTree', undefined, { sessionId })
      .then((r) => walk(r.frameTree))
      .catch(() => {});
    return urls;
  }

  tool(ref: string): LiveTool | undefined {
    return this.refs.get(ref);
  }

  /**
   * A tab's current top-level document (its loader id changes with every navigation) and the
   * hub's attachment to it; undefined when the tab is not attached (closed, or not listed yet).
   */
  async documentOf(tabId: string): Promise<{ sessionId: string; loaderId: string; url: string } | undefined> {
    const a = [...this.attachments.values()].find((x) => x.targetId === tabId && x.tabId === tabId);
    if (!a) return undefined;
    const c = await this.connection();
    const r = await c.send('Page.getFrameTree', undefined, { sessionId: a.sessionId }).catch(() => undefined);
    return r && { sessionId: a.sessionId, loaderId: r.frameTree.frame.loaderId, url: r.frameTree.frame.url };
  }

  /**
   * Every document a tab shows: its top-level document first, then its frames — those in the
   * tab's process (the tab's attachment runs code in them) and those in other processes (their
   * own attachment does) — each with the attachment to reach it through. Undefined when the
   * tab is not attached.
   */
  async documentsOf(tabId: string): Promise<TabDocument[] | undefined> {
    const own = [...this.attachments.values()].filter((x) => x.tabId === tabId);
    const top = own.find((x) => x.targetId === tabId);
    if (!top) return undefined;
    const c = await this.connection();
    type Node = { frame: { id: string; loaderId: string; url: string }; childFrames?: Node[] };
    const trees = await Promise.all(
      [top, ...own.filter((x) => x !== top)].map((a) =>
        c
          .send('Page.getFrameTree', undefined, { sessionId: a.sessionId })
          .then((r) => ({ a, tree: r.frameTree }))
          .catch(() => undefined),
      ),
    );
    if (!trees[0]) return undefined;
    const docs = new Map<string, TabDocument>();
    const walk = (sessionId: string, n: Node) => {
      docs.set(n.frame.id, { sessionId, frameId: n.frame.id, loaderId: n.frame.loaderId, url: n.frame.url });
      n.childFrames?.forEach((child) => walk(sessionId, child));
    };
    // The tab's tree first; a frame in another process is then reached through its own attachment.
    for (const t of trees) if (t) walk(t.a.sessionId, t.tree);
    return [...docs.values()];
  }

  /** A command on one of the hub's attachments (custom tools run in the page through it). */
  async send<M extends CdpMethod>(method: M, params: CdpParams<M>, sessionId: string, timeoutMs?: number): Promise<CdpResult<M>> {
    const c = await this.connection();
    return c.send(method, params, { sessionId, timeoutMs });
  }

  /**
   * Invokes a registration and waits for its terminal result. Throws OutcomeUnknown when the
   * result cannot be observed in time or its document's attachment goes away; the invocation
   * is then canceled (best effort) and never retried.
   */
  async invoke(t: LiveTool, input: Record<string, unknown>, timeoutMs: number): Promise<ToolResponse & { invocationId: string }> {
    const c = await this.connection();
    let invocationId: string;
    try {
      ({ invocationId } = await c.send('WebMCP.invokeTool', { frameId: t.tool.frameId, toolName: t.tool.name, input }, { sessionId: t.sessionId }));
    } catch (err) {
      if (!this.refs.has(t.ref)) throw new OutcomeUnknown(`the tool's document went away: ${(err as Error).message}`);
      return { invocationId: `inv_${randomBytes(9).toString('base64url')}`, status: 'Error', errorText: (err as Error).message };
    }
    const early = this.responses.get(invocationId);
    if (early) {
      this.responses.delete(invocationId);
      return { invocationId, ...early };
    }
    let timer: NodeJS.Timeout | undefined;
    let offDetach: (() => void) | undefined;
    let onEnded: (() => void) | undefined;
    try {
      const result = await new Promise<ToolResponse>((resolve, reject) => {
        this.waiters.set(invocationId, resolve);
        timer = setTimeout(() => reject(new OutcomeUnknown(`no result within ${timeoutMs / 1000} s`, invocationId)), timeoutMs);
        offDetach = this.onDetach(t.sessionId, () => reject(new OutcomeUnknown('the tab or frame of the tool closed before it answered', invocationId)));
        onEnded = () => reject(new OutcomeUnknown('the session ended', invocationId));
        this.handle.signal.addEventListener('abort', onEnded, { once: true });
      });
      return { invocationId, ...result };
    } catch (err) {
      void c.send('WebMCP.cancelInvocation', { invocationId }, { sessionId: t.sessionId }).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      offDetach?.();
      // The session's signal outlives the call: a listener left on it per call would pile up.
      if (onEnded) this.handle.signal.removeEventListener('abort', onEnded);
      this.waiters.delete(invocationId);
    }
  }

  /** Calls `fn` once the attachment goes away (at once when it is gone already); returns the undo. */
  onDetach(sessionId: string, fn: () => void): () => void {
    if (!this.attachments.has(sessionId)) {
      fn();
      return () => {};
    }
    let set = this.detachWaiters.get(sessionId);
    if (!set) this.detachWaiters.set(sessionId, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  private throwIfUnavailable(): void {
    if (this.unavailable) throw new WebMcpUnavailable(this.unavailable);
  }

  private connection(): Promise<CdpConnection> {
    if (this.closed) return Promise.reject(new Error('session ended'));
    if (!this.conn) {
      const p = this.listen();
      this.conn = p;
      p.catch(() => this.conn === p && (this.conn = undefined));
    }
    return this.conn;
  }

  private async listen(): Promise<CdpConnection> {
    const c = await this.cdp.connection();
    c.on('Target.targetCreated', (p) => {
      const t = p.targetInfo as TargetInfo;
      if (t.type === 'page') void this.attachPage(c, t.targetId).catch(() => {});
    });
    // Children (frames in other processes) of one of our attachments arrive on its session.
    c.on('Target.attachedToTarget', (p, parent) => {
      const owner = parent ? this.attachments.get(parent) : undefined;
      const t = p.targetInfo as TargetInfo;
      if (owner && t.type === 'iframe') void this.enable(c, { sessionId: p.sessionId as string, targetId: t.targetId, tabId: owner.tabId }).catch(() => {});
    });
    c.on('Target.detachedFromTarget', (p) => this.detached(p.sessionId as string, p.targetId as string | undefined));
    c.on('WebMCP.toolsAdded', (p, sessionId) => {
      const a = sessionId ? this.attachments.get(sessionId) : undefined;
      if (a) for (const tool of (p.tools as CdpTool[]) ?? []) this.added(a, tool);
    });
    c.on('WebMCP.toolsRemoved', (p, sessionId) => {
      if (!sessionId) return;
      for (const tool of (p.tools as { name: string; frameId: string }[]) ?? []) this.removed(this.keyOf(sessionId, tool.frameId, tool.name));
    });
    // Chromium sends no toolsRemoved when a document goes away: a frame's new document (or
    // its removal) ends the registrations of the old one.
    c.on('Page.frameNavigated', (p, sessionId) => sessionId && this.frameGone(sessionId, (p.frame as { id: string }).id));
    c.on('Page.frameDetached', (p, sessionId) => sessionId && this.frameGone(sessionId, String(p.frameId)));
    c.on('WebMCP.toolResponded', (p, sessionId) => {
      if (!sessionId || !this.attachments.has(sessionId)) return;
      const id = String(p.invocationId);
      // A tool that threw has an empty errorText and the exception beside it.
      const exception = (p.exception as { description?: string } | undefined)?.description;
      const r: ToolResponse = { status: String(p.status), output: p.output, errorText: (p.errorText as string | undefined) || exception };
      const waiter = this.waiters.get(id);
      if (waiter) return waiter(r);
      this.responses.set(id, r);
      if (this.responses.size > RESPONSE_BUFFER) this.responses.delete(this.responses.keys().next().value!);
    });
    return c;
  }

  private attachPage(c: CdpConnection, targetId: string): Promise<void> {
    let p = this.targets.get(targetId);
    if (!p) {
      p = (async () => {
        const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
        await this.enable(c, { sessionId, targetId, tabId: targetId });
      })();
      this.targets.set(targetId, p);
      p.catch(() => this.targets.get(targetId) === p && this.targets.delete(targetId));
    }
    return p.catch(() => {});
  }

  /** WebMCP on one attachment (its current tools arrive as toolsAdded), and its OOPIFs attached. */
  private async enable(c: CdpConnection, a: Attachment): Promise<void> {
    this.attachments.set(a.sessionId, a);
    await Promise.all([
      c.send('Page.enable', {}, { sessionId: a.sessionId }).catch(() => {}),
      c.send('WebMCP.enable', undefined, { sessionId: a.sessionId }).catch((err: Error) => {
        // A browser without the domain (or with the feature off) says so on every target.
        if (/wasn't found|WebMCP is not enabled/i.test(err.message)) {
          this.unavailable = `Chromium's WebMCP domain: ${err.message}`;
          unavailableSeen = true;
        }
      }),
      c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, { sessionId: a.sessionId }).catch(() => {}),
    ]);
  }

  private keyOf(sessionId: string, frameId: string, name: string): string {
    return `${sessionId}\u0000${frameId}\u0000${name}`;
  }

  private added(a: Attachment, tool: CdpTool): void {
    const key = this.keyOf(a.sessionId, tool.frameId, tool.name);
    this.removed(key);
    const live: LiveTool = { ref: `wt_${randomBytes(12).toString('base64url')}`, sessionId: a.sessionId, tabId: a.tabId, tool };
    this.tools.set(key, live);
    this.refs.set(live.ref, live);
  }

  private removed(key: string): void {
    const old = this.tools.get(key);
    if (!old) return;
    this.tools.delete(key);
    this.refs.delete(old.ref);
  }

  private frameGone(sessionId: string, frameId: string): void {
    for (const [key, t] of this.tools) if (t.sessionId === sessionId && t.tool.frameId === frameId) this.removed(key);
  }

  private detached(sessionId: string, targetId?: string): void {
    const a = this.attachments.get(sessionId);
    if (!a) return;
    this.attachments.delete(sessionId);
    if (a.tabId === a.targetId) this.targets.delete(a.targetId);
    else if (targetId) this.targets.delete(targetId);
    for (const [key, t] of this.tools) if (t.sessionId === sessionId) this.removed(key);
    for (const fn of this.detachWaiters.get(sessionId) ?? []) fn();
    this.detachWaiters.delete(sessionId);
  }

  /** The connection was replaced (browser restart): every attachment and ref is gone. */
  private forget(): void {
    for (const sessionId of [...this.attachments.keys()]) this.detached(sessionId);
    this.conn = undefined;
    this.targets.clear();
    this.numbers.clear();
    this.counter = 0;
    this.responses.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    this.offReset();
  }
}

/** The session's hub: `handle.scope.get(WebMcpHubSlot)`, made on first use, closed with the session. */
export const WebMcpHubSlot: Slot<WebMcpHub> = { name: 'webmcp-hub', create: (scope) => new WebMcpHub(scope.handle), close: (h) => h.close() };
