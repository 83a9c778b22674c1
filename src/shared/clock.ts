/** Injected time source, so deprecation dates, expiry and timeouts are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
