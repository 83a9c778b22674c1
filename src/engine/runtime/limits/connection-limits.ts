/**
 * The cap on concurrent WebSocket connections (CDP, BiDi, live view, terminals, the DevTools
 * frontend, upgrades piped to another node) per session and per engine, applied by the upgrade
 * router (`http/upgrade-router.ts`) to every upgrade before its handler runs: over a bound the
 * upgrade is answered 429 `connection_limit` before any handshake. A slot is held until the
 * socket closes. Each connection costs the engine about two descriptors, so the engine's
 * default bound comes from its open-file limit (`open-file-limit.ts`): a tenant opening sockets
 * to its own session cannot take the descriptors every other project's creates and calls need.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { sessionSignals } from '../../events/session-signals.js';
import { SlotLimiter } from './slot-limiter.js';
import type { LimitLog } from './call-limits.js';

export class ConnectionLimits {
  private readonly slots: SlotLimiter;

  constructor(
    readonly perSession: number,
    readonly perEngine: number,
    private readonly warn: LimitLog = () => {},
  ) {
    this.slots = new SlotLimiter(perSession, perEngine);
  }

  /**
   * A slot for one connection (of `sessionId` when the route names a session), released by the
   * function returned; throws 429 over a bound.
   */
  admit(sessionId: string | undefined): () => void {
    const slot = this.slots.acquire(sessionId);
    if (typeof slot === 'function') return slot;
    const message =
      slot.scope === 'session'
        ? `this session already has ${slot.max} open connections, its limit (--connections-per-session ${slot.max}); close one and try again`
        : `the engine already has ${slot.max} open connections, its limit (--connections-per-engine ${slot.max}); try again later`;
    if (sessionId !== undefined) sessionSignals.emit({ type: 'limit_reached', sessionId, limit: 'connections', scope: slot.scope, max: slot.max });
    this.warn({ sessionId, scope: slot.scope, max: slot.max }, `WebSocket refused: ${message}`);
    throw new DomainError(429, 'connection_limit', message, [{ code: `${slot.scope}_limit`, message: `connections per ${slot.scope}: ${slot.max}` }], {
      afterSeconds: 1,
    });
  }

  /** What `/healthz` shows under `limits.connections`. */
  status(): { per_session: number; per_engine: number; open: number } {
    return { per_session: this.perSession, per_engine: this.perEngine, open: this.slots.inUse() };
  }
}
