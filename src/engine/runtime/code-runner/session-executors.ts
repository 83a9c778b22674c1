/**
 * A session's Playwright executors (spec §7): `default` (always there; binds `page` to the
 * browser's active tab) and up to 8 named ones, each owning a background tab. Created on first
 * use, listed default first, deleted (the default restarted) on request; all of them end with
 * the session (the engine's stop ends every session).
 */
import type { SessionHandle } from '../session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { SessionCdpSlot } from '../cdp/session-cdp.js';
import { devtoolsJson } from '../chromium/devtools-address.js';
import { Executor, type TabChoice } from './executor.js';
import { buildRunnerLaunch } from './runner-launch.js';
import { activeTab } from './active-tab.js';
import type { RunnerServices } from './runner-services.js';
import type { Slot } from '../session/session-scope.js';

export const DEFAULT_EXECUTOR = 'default';
export const MAX_NAMED_EXECUTORS = 8;
/** Marks executor processes (their title inside the jail, their command line without it). */
export const RUNNER_MARKER = '--browserdeck-code-runner';
/** Session paths an executor may write besides its tmp dir: Playwright traces. */
export const TRACES_DIR = '/tmp/traces';

export interface ExecutorInfo {
  name: string;
  busy: boolean;
  /** Browserdeck: calls waiting behind the running one. */
  queued: number;
  created_at: string;
  last_used_at: string;
  target_id?: string;
  url?: string;
}

/** 409 on a 9th named executor; the route adds the executor list to the Error object. */
export class ExecutorLimitError extends DomainError {
  constructor(readonly executors: ExecutorInfo[]) {
    super(409, 'executor_limit_reached', `a browser has at most ${MAX_NAMED_EXECUTORS} named executors besides "default"; delete one first`, [], {
      retryable: false,
    });
  }
}

export class SessionExecutors {
  private readonly executors = new Map<string, Executor>();
  private ended = false;

  constructor(
    private readonly handle: SessionHandle,
    private readonly services: RunnerServices,
  ) {
    // The new browser has another address: every executor reconnects from a new process.
    handle.onBrowserRestart(() => {
      for (const e of this.executors.values()) void e.stop('the browser restarted during execution', false);
    });
    this.executors.set(DEFAULT_EXECUTOR, this.make(DEFAULT_EXECUTOR));
  }

  /** The executor `name`, created on first use; ExecutorLimitError beyond 8 named ones. */
  async executor(name: string): Promise<Executor> {
    if (this.ended) throw DomainError.notFound('browser session', this.handle.id);
    let e = this.executors.get(name);
    if (!e) {
      if (this.executors.size - 1 >= MAX_NAMED_EXECUTORS) throw new ExecutorLimitError(await this.list());
      this.executors.set(name, (e = this.make(name)));
    }
    return e;
  }

  async list(): Promise<ExecutorInfo[]> {
    const urls = new Map<string, string>();
    try {
      const { wsUrl } = await this.handle.ready();
      for (const t of await devtoolsJson<{ id: string; url: string }[]>(wsUrl, '/json/list')) urls.set(t.id, t.url);
    } catch {
      // No browser right now (restarting): executors are listed without URLs.
    }
    return [...this.executors.values()].map((e) => {
      const own = e.name === DEFAULT_EXECUTOR ? undefined : e.targetId;
      const url = e.targetId ? urls.get(e.targetId) : undefined;
      return {
        name: e.name,
        busy: e.busy,
        queued: e.queued,
        created_at: e.createdAt.toISOString(),
        last_used_at: e.lastUsedAt.toISOString(),
        ...(own && urls.has(own) ? { target_id: own } : {}),
        ...(url !== undefined ? { url } : {}),
      };
    });
  }

  /**
   * Deletes a named executor (its tab closed unless `closeTab` is false) or restarts the
   * default one. False when there is no executor of that name.
   */
  async delete(name: string, closeTab: boolean): Promise<boolean> {
    const e = this.executors.get(name);
    if (!e) return false;
    if (name === DEFAULT_EXECUTOR) {
      await e.stop('the executor was restarted', false);
      this.executors.set(name, this.make(name));
      return true;
    }
    this.executors.delete(name);
    await e.stop('the executor was deleted', true);
    if (closeTab && e.targetId)
      await this.handle.scope
        .get(SessionCdpSlot)
        .send('Target.closeTarget', { targetId: e.targetId })
        .catch(() => {});
    return true;
  }

  private make(name: string): Executor {
    return new Executor(
      name,
      async () => {
        const { wsUrl } = await this.handle.ready();
        return buildRunnerLaunch(this.handle, `${RUNNER_MARKER}=${this.handle.id}`, wsUrl, this.services.hide, await usableBwrap(), 'code-runner-child.mjs', [
          TRACES_DIR,
        ]);
      },
      (e) => this.chooseTab(e),
      (channel, runningCall) => this.services.serveWebMcp(channel, this.handle, (m) => m.callId !== undefined && m.callId === runningCall()),
    );
  }

  private async chooseTab(e: Executor): Promise<TabChoice> {
    if (e.name !== DEFAULT_EXECUTOR) return { targetId: e.targetId, background: true };
    const named = new Set([...this.executors.values()].filter((x) => x !== e && x.targetId).map((x) => x.targetId!));
    return { targetId: await activeTab(this.handle, named), background: false };
  }

  /** The session ended (also at engine stop, which ends every session). */
  async end(): Promise<void> {
    this.ended = true;
    await Promise.all([...this.executors.values()].map((e) => e.stop('the session ended during execution', true)));
  }
}

/** The slot of a session's executors, wired with `services` once per engine (api/session-runners.ts). */
export function sessionExecutorsSlot(services: RunnerServices): Slot<SessionExecutors> {
  return { name: 'session-executors', create: (scope) => new SessionExecutors(scope.handle, services), close: (e) => e.end() };
}
