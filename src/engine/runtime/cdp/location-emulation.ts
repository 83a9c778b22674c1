/**
 * A session's time zone and locale overrides, applied in its running browser over CDP without
 * a restart: `Emulation.setTimezoneOverride` / `setLocaleOverride` on every target — pages,
 * frames in other processes, dedicated/shared/service workers — existing ones and each new one
 * before it runs a line (auto-attach with `waitForDebuggerOnStart`, then resumed).
 *
 * It rides on the session's shared engine connection (`SessionCdp`, which opens, reopens after a
 * browser restart and closes it): the first `apply` sets up the auto-attach on it, again on each
 * new connection. The overrides are in-memory here; the session's stored options are their record.
 */
import type { SessionHandle } from '../session/session-handle.js';
import type { CdpConnection } from '../chromium/cdp-connection.js';
import type { Slot } from '../session/session-scope.js';
import { SessionCdpSlot, type SessionCdp } from './session-cdp.js';

export interface LocationValues {
  timezone?: string;
  locale?: string;
}

interface TargetInfo {
  targetId: string;
  type: string;
}

/**
 * Sessions with an apply in flight, by id: only while one runs (an entry goes at zero). The
 * session's record (domain/sessions/session-record.ts) reads it from its row alone, without the
 * session's handle; once its caller passes the handle this can be `handle.scope.peek`.
 */
const applying = new Map<string, number>();
/** Target kinds that can have children (workers, out-of-process frames) of their own. */
const PARENTS = new Set(['page', 'iframe']);

export class LocationEmulation {
  private desired: LocationValues = {};
  private readonly cdp: SessionCdp;
  /** The shared connection with the auto-attach set up (until SessionCdp replaces it). */
  private conn?: Promise<CdpConnection>;
  private readonly listening = new WeakSet<CdpConnection>();
  private readonly attached = new Set<string>();
  private readonly agents = new WeakMap<CdpConnection, Promise<string>>();
  private readonly offReset: () => void;
  private closed = false;

  constructor(private readonly handle: SessionHandle) {
    this.cdp = handle.scope.get(SessionCdpSlot);
    // A new connection (restart, or the old one closed) has none of our attachments.
    this.offReset = this.cdp.onReset(() => {
      this.conn = undefined;
      this.attached.clear();
    });
    handle.onBrowserRestart(() => {
      if (!this.closed && (this.desired.timezone || this.desired.locale)) void this.applyAll().catch(() => {});
    });
  }

  /** Whether overrides were ever applied in this session (then clearing them needs the connection). */
  static active(handle: SessionHandle): boolean {
    return handle.scope.peek(LocationEmulationSlot) !== undefined;
  }

  /** Whether the last requested overrides are still being applied (the Session object's `location.pending`; false for unknown sessions). */
  static pending(sessionId: string): boolean {
    return applying.has(sessionId);
  }

  /** Sets the overrides (undefined fields: the browser's own default) on every target. */
  async apply(values: LocationValues): Promise<void> {
    this.desired = { ...values };
    await this.applyAll();
  }

  private async applyAll(): Promise<void> {
    const id = this.handle.id;
    applying.set(id, (applying.get(id) ?? 0) + 1);
    try {
      const c = await this.connection();
      await Promise.all([...this.attached].map((sid) => this.emulate(c, sid)));
    } finally {
      const left = (applying.get(id) ?? 1) - 1;
      if (left > 0) applying.set(id, left);
      else applying.delete(id);
    }
  }

  private connection(): Promise<CdpConnection> {
    if (this.closed) return Promise.reject(new Error('session ended'));
    if (!this.conn) {
      const p = this.autoAttach();
      this.conn = p;
      p.catch(() => this.conn === p && (this.conn = undefined));
    }
    return this.conn;
  }

  private async autoAttach(): Promise<CdpConnection> {
    const c = await this.cdp.connection();
    if (!this.listening.has(c)) {
      this.listening.add(c);
      c.on('Target.attachedToTarget', (p) => void this.onAttached(c, p.sessionId as string, p.targetInfo as TargetInfo, !!p.waitingForDebugger));
      c.on('Target.detachedFromTarget', (p) => this.attached.delete(p.sessionId as string));
    }
    // Browser-wide: every page and worker target now and later; children of each come below.
    await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    return c;
  }

  private async onAttached(c: CdpConnection, sessionId: string, target: TargetInfo, waiting: boolean): Promise<void> {
    this.attached.add(sessionId);
    try {
      await Promise.all([
        this.emulate(c, sessionId),
        PARENTS.has(target.type)
          ? c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, { sessionId }).catch(() => {})
          : undefined,
      ]);
    } finally {
      // A new target waits for us before it runs: always let it go.
      if (waiting) await c.send('Runtime.runIfWaitingForDebugger', undefined, { sessionId }).catch(() => {});
    }
  }

  /**
   * Sets (or clears, with empty values) both overrides on one target; targets without a domain
   * skip it. The locale is ICU's (Intl) and the language the page reports and sends
   * (`navigator.language`, Accept-Language), which needs the user agent restated as it is.
   */
  private async emulate(c: CdpConnection, sessionId: string): Promise<void> {
    const { timezone, locale } = this.desired;
    const ua = locale ? await this.userAgent(c) : '';
    const uaParams = locale ? { userAgent: ua, acceptLanguage: locale } : { userAgent: '' };
    await Promise.all([
      c.send('Emulation.setTimezoneOverride', { timezoneId: timezone ?? '' }, { sessionId }).catch(() => {}),
      c.send('Emulation.setLocaleOverride', locale ? { locale } : {}, { sessionId }).catch(() => {}),
      // Workers have no Emulation domain for it, but Network's twin.
      c
        .send('Emulation.setUserAgentOverride', uaParams, { sessionId })
        .catch(() => c.send('Network.setUserAgentOverride', uaParams, { sessionId }).catch(() => {})),
    ]);
  }

  /** The browser's own user agent (its `--user-agent` for stealth sessions), once per connection. */
  private userAgent(c: CdpConnection): Promise<string> {
    let ua = this.agents.get(c);
    if (!ua) {
      ua = c.send('Browser.getVersion').then((v) => v.userAgent);
      this.agents.set(c, ua);
    }
    return ua;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.offReset();
    this.attached.clear();
  }
}

/** The session's overrides: `handle.scope.get(LocationEmulationSlot)`, made on first apply, closed with the session. */
export const LocationEmulationSlot: Slot<LocationEmulation> = {
  name: 'location-emulation',
  create: (scope) => new LocationEmulation(scope.handle),
  close: (e) => e.close(),
};
