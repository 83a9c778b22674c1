/**
 * How deep the standby is and how fast it refills, as pure functions of what was measured.
 *
 * Depth: a claimed browser is replaced one launch time later, so the creates that came within one
 * launch time of each other are the ones ready browsers must serve by themselves: the most such
 * creates in the remembered window is the depth a shape wants (a burst of ten wants ten; a loop
 * of back-to-back sessions wants its rate × the launch time). Memory and count bound it elsewhere.
 *
 * Parallel launches: raw Chromium launches are CPU-bound; launches/s rises with parallel
 * launches up to about one per core and no further (`npm run bench:launch-rate`, docs/bench/), so
 * config.ts starts `--standby-launches` at the core count. A jailed standby launch also waits on
 * things that take no CPU (the session disk's copy and mount, the jail's helpers, the browser's
 * own IPC): back to back on a quiet 2-core machine, 2 at once kept the CPUs only about half busy
 * (≈ 1.1 s of CPU per session at 0.89 sessions/s, 2026-12-02). So while creates wait for launches
 * and the CPUs still have idle time, one more runs at once (up to a ceiling, by default two per
 * core); when the CPUs are saturated, one fewer (down to the floor).
 */

/** Estimated PSS of one idle jailed browser (issue 14 measured 164 MB headless); headful adds Xvfb. config.ts's default `--standby` uses the headless figure. */
export const STANDBY_EST_MB = { headless: 200, headful: 260 };
/** The first launch-time estimate, before any standby launch was measured (jailed, headless, 2 cores). */
export const FIRST_LAUNCH_MS = 1500;
/** How much a new launch measurement moves the estimate (an exponential moving average). */
const LAUNCH_WEIGHT = 0.3;

/** The most of `times` (ms, any order) that fall within one window of `windowMs`. */
export function burstDepth(times: readonly number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while (t[hi] - t[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** The launch-time estimate after one more measured launch. */
export function nextLaunchEstimate(estimateMs: number, measuredMs: number): number {
  return estimateMs + LAUNCH_WEIGHT * (measuredMs - estimateMs);
}

/** CPU idle share (0–1) over the last interval at or above which a waited-for standby launches one more at once. */
export const IDLE_TO_GROW = 0.25;
/** Below this CPU idle share, the CPUs are saturated: one launch fewer at once. */
export const IDLE_TO_SHRINK = 0.05;

/**
 * The standby launches to run at once next, from what the last interval measured: the CPUs' idle
 * share, and whether a create waited for a launch (adopted one under way, or launched cold).
 */
export function nextLaunchLimit(current: number, seen: { idle: number; waited: boolean }, floor: number, ceiling: number): number {
  if (seen.idle < IDLE_TO_SHRINK) return Math.max(floor, current - 1);
  if (seen.waited && seen.idle >= IDLE_TO_GROW) return Math.min(ceiling, current + 1);
  return Math.min(ceiling, Math.max(floor, current));
}
