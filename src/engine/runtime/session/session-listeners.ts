/**
 * Who hears of a running session's changes: its browser restarted (after a crash or on purpose;
 * CDP consumers reconnect to the new browser) and PATCH updates (telemetry, viewport, …), which
 * the update waits for, each listener bounded: a failing or slow one is logged and never breaks it.
 */
import { BoundedListeners } from './bounded-listeners.js';
import type { ProblemLog } from './problem-log.js';
import type { SessionHandle } from './session-handle.js';

export class SessionListeners {
  private readonly restart = new Set<() => void>();
  private readonly updates: BoundedListeners<SessionHandle>;

  constructor(log: ProblemLog) {
    this.updates = new BoundedListeners(log, 'session update');
  }

  onBrowserRestart(fn: () => void): () => void {
    this.restart.add(fn);
    return () => this.restart.delete(fn);
  }

  browserRestarted(): void {
    for (const fn of this.restart) fn();
  }

  /** A listener may return a promise: the update waits for it (bounded). */
  onUpdate(fn: (s: SessionHandle) => void | Promise<void>): () => void {
    return this.updates.add(fn);
  }

  /**
   * Tells every listener about an update and resolves once they have applied it (the telemetry
   * collector has enabled newly switched-on domains), so what the caller does next is seen.
   */
  notifyUpdate(handle: SessionHandle): Promise<void> {
    return this.updates.run(handle);
  }
}
