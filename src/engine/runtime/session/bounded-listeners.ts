/**
 * Listeners a session step waits for, all at once and each bounded: the manager's
 * `onSessionStart` listeners (a create awaits them — the telemetry collector must watch the
 * first page before a deferred `start_url` loads) and a session's `onUpdate` listeners (a PATCH
 * awaits them — the collector must have enabled newly switched-on domains before the caller
 * navigates). A listener still busy after `boundMs` (a create: at the create's one deadline) is logged and left to finish in the
 * background, a failing one is logged — neither fails the step nor holds it forever.
 */
import type { ProblemLog } from './problem-log.js';

export type BoundedListener<H> = (h: H) => void | Promise<void>;

export const LISTENER_BOUND_MS = 10_000;

export class BoundedListeners<H extends { id: string }> {
  private readonly fns = new Set<BoundedListener<H>>();

  /** `what` names the step in log lines ('session start', 'session update'). */
  constructor(
    private readonly log: ProblemLog,
    private readonly what: string,
    private readonly boundMs = LISTENER_BOUND_MS,
  ) {}

  add(fn: BoundedListener<H>): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }

  /**
   * Runs every listener for the session; resolves when all are done or over the bound: the
   * step's `deadline` when it has one (a create's), else `boundMs`.
   */
  async run(h: H, deadline?: AbortSignal): Promise<void> {
    await Promise.all([...this.fns].map((fn) => this.runOne(fn, h, deadline)));
  }

  private async runOne(fn: BoundedListener<H>, h: H, deadline?: AbortSignal): Promise<void> {
    let result: void | Promise<void>;
    try {
      result = fn(h);
    } catch (err) {
      this.log.error({ err, session: h.id }, `${this.what} listener failed`);
      return;
    }
    if (!result || typeof (result as Promise<void>).then !== 'function') return;
    const done = Promise.resolve(result).then(
      () => true,
      (err) => {
        this.log.error({ err, session: h.id }, `${this.what} listener failed`);
        return true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    let onDeadline: (() => void) | undefined;
    const late = new Promise<false>((resolve) => {
      if (deadline) {
        onDeadline = () => resolve(false);
        if (deadline.aborted) onDeadline();
        else deadline.addEventListener('abort', onDeadline, { once: true });
        return;
      }
      timer = setTimeout(() => resolve(false), this.boundMs);
      timer.unref();
    });
    const finished = await Promise.race([done, late]);
    clearTimeout(timer);
    if (onDeadline) deadline?.removeEventListener('abort', onDeadline);
    if (!finished) this.log.warn({ session: h.id, boundMs: deadline ? undefined : this.boundMs }, `${this.what} listener still busy; going on without it`);
  }
}
