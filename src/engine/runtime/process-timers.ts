/**
 * The process's own timers as the injected `Timers` (shared/clock.ts): what an engine uses
 * unless a test passes timers it advances by hand (test/helpers/manual-timers.ts). Engine-only:
 * Node's timer handles, which must not keep the process alive.
 */
import type { Timers } from '../../shared/clock.js';

export const processTimers: Timers = {
  set(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};
