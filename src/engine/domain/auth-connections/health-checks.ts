/**
 * Periodic health checks of auth connections: every `health_check_interval`, a headless
 * session on the profile loads the site and looks whether it still asks for credentials.
 * A lost login marks the connection NEEDS_AUTH; with `auto_reauth` and a credential that can
 * answer what the login asked for last time, a REAUTH flow logs back in without a person.
 * One check runs at a time (browsers are expensive); connections with a flow running wait.
 */
import type { Clock } from '../../../shared/clock.js';
import type { AuthConnections, ConnectionRow } from './auth-connections.js';
import type { AuthTimeline } from './auth-timeline.js';
import { actingAs, type AuthService } from './auth-service.js';
import type { FlowSessions } from './login-flow.js';
import { asksForLogin, snapshot } from './page-discovery.js';

export class HealthChecks {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly d: {
      connections: AuthConnections;
      timeline: AuthTimeline;
      service: AuthService;
      sessions: () => FlowSessions | undefined;
      clock: Clock;
      tickMs: number;
      log(msg: string, err?: unknown): void;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      // A tick's failure is logged, never left as an unhandled rejection (a query can fail while
      // the engine stops and closes its database under a tick already running).
      this.running = this.tick()
        .catch((err) => {
          if (!this.stopped) this.d.log('auth connection health checks failed', err);
        })
        .finally(() => (this.running = undefined));
    }, this.d.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const now = this.d.clock.now();
    for (const row of await this.d.connections.due(now.toISOString())) {
      if (this.stopped) return;
      const next = new Date(now.getTime() + row.health_check_interval * 1000).toISOString();
      // Nothing to verify before a first login, and a running flow owns the profile for now.
      if (!row.last_login_at || this.d.service.isRunning(row.id)) {
        await this.d.connections.update(row.id, { next_check_at: next });
        continue;
      }
      try {
        await this.check(row);
      } catch (err) {
        this.d.log(`health check of auth connection ${row.id} failed`, err);
        await this.d.connections.update(row.id, { next_check_at: next }).catch(() => {});
      }
    }
  }

  /** Runs one check now (also used by tests through the scheduler). */
  async check(row: ConnectionRow): Promise<'AUTHENTICATED' | 'NEEDS_AUTH'> {
    const sessions = this.d.sessions();
    if (!sessions) throw new Error('sessions are not available');
    const auth = actingAs(row);
    const s = await sessions.create(auth, {
      profile: { name: row.profile_name },
      headless: true,
      timeout_seconds: 120,
      ...(row.proxy_id ? { proxy_id: row.proxy_id } : {}),
    });
    let loggedIn = false;
    try {
      const handle = sessions.get(s.session_id);
      if (!handle) throw new Error('the health-check session ended unexpectedly');
      // Driven straight over CDP, which the idle freezer does not see: a slow page must not freeze under the check.
      const thawed = handle.holdThawed();
      try {
        const { chromium } = await import('playwright-core'); // loaded by the first check, not at engine start
        const browser = await chromium.connectOverCDP(handle.browserCdpUrl());
        try {
          const context = browser.contexts()[0] ?? (await browser.newContext());
          const page = context.pages()[0] ?? (await context.newPage());
          await page.goto(row.post_login_url ?? row.login_url ?? `https://${row.domain}/`, { waitUntil: 'load', timeout: 30_000 });
          loggedIn = !asksForLogin(await snapshot(page));
        } finally {
          await browser.close().catch(() => {});
        }
      } finally {
        thawed();
      }
    } finally {
      await sessions.delete(auth, s.session_id).catch(() => {});
    }
    const current = await this.d.connections.byId(row.id);
    const status = loggedIn ? 'AUTHENTICATED' : 'NEEDS_AUTH';
    if (!current) return status; // deleted while we looked
    const now = this.d.clock.now();
    await this.d.connections.update(row.id, {
      status,
      last_auth_check_at: now.toISOString(),
      next_check_at: new Date(now.getTime() + current.health_check_interval * 1000).toISOString(),
    });
    await this.d.timeline.add({ connectionId: row.id, type: 'health_check', status, previousStatus: current.status, browserSessionId: s.session_id });
    if (!loggedIn && current.auto_reauth && !this.stopped) {
      const fresh = await this.d.connections.byId(row.id);
      if (fresh && (await this.d.service.canReauth(fresh)).can && !this.d.service.isRunning(row.id)) await this.d.service.startFlow(fresh, 'REAUTH');
    }
    return status;
  }
}
