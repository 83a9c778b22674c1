/**
 * The bound on a session's concurrent `exec` and Playwright `execute` calls, and on all of the
 * engine's (`services.callLimits`). Each such call holds output in the engine's memory until it
 * answers; over a bound the call is refused at once with 429 `concurrency_limit` naming the
 * bound (never queued), the session's telemetry gets a `system_limit_reached` event and the engine's
 * log a line, and every other session carries on within its own budget.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { sessionSignals } from '../../events/session-signals.js';
import type { ExecLimits } from '../../config.js';
import { SlotLimiter } from './slot-limiter.js';

export type LimitLog = (fields: Record<string, unknown>, message: string) => void;

export class CallLimits {
  private readonly slots: SlotLimiter;

  constructor(
    readonly limits: ExecLimits,
    private readonly warn: LimitLog = () => {},
  ) {
    this.slots = new SlotLimiter(limits.perSession, limits.perEngine);
  }

  /** A slot for one call of the session, released by the function returned; throws 429 over a bound. */
  acquire(sessionId: string, call: 'exec' | 'execute'): () => void {
    const slot = this.slots.acquire(sessionId);
    if (typeof slot === 'function') return slot;
    const message =
      slot.scope === 'session'
        ? `this session already runs ${slot.max} exec/execute calls, its limit (--exec-per-session ${slot.max}); try again when one has finished`
        : `the engine already runs ${slot.max} exec/execute calls, its limit (--exec-per-engine ${slot.max}); try again when one has finished`;
    sessionSignals.emit({ type: 'limit_reached', sessionId, limit: 'exec_calls', scope: slot.scope, max: slot.max });
    this.warn({ sessionId, call, scope: slot.scope, max: slot.max }, `${call} refused: ${message}`);
    throw new DomainError(429, 'concurrency_limit', message, [{ code: `${slot.scope}_limit`, message: `exec/execute calls per ${slot.scope}: ${slot.max}` }], {
      afterSeconds: 1,
    });
  }

  /** What `/healthz` shows under `limits.exec`. */
  status(): { per_session: number; per_engine: number; output_max_bytes: number; in_use: number } {
    return { per_session: this.limits.perSession, per_engine: this.limits.perEngine, output_max_bytes: this.limits.outputMaxBytes, in_use: this.slots.inUse() };
  }
}
