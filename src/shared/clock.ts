/** Injected time source, so deprecation dates, expiry and timeouts are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Injected timers, so a test can run out a long timeout without waiting for it
 * (EngineOptions.sessionTimers). `set` calls `fn` once after `ms` and returns what cancels it.
 */
export interface Timers {
  set(fn: () => void, ms: number): () => void;
}
