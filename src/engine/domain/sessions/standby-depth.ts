/**
 * How deep the standby is and how fast it refills, as pure functions of what was measured.
 *
 * Depth: a claimed browser is replaced one launch time later, so the creates that came within one
 * launch time of each other are the ones ready browsers must serve by themselves: the most such
 * creates in the remembered window is the depth a shape wants (a burst of ten wants ten; a loop
 * of back-to-back sessions wants its rate × the launch time). Memory and count bound it elsewhere.
 *
 * Parallel launches: jailed Chromium launches are CPU-bound; launches/s rises with parallel
 * launches up to about one per core and no further (`npm run bench:launch-rate`, docs/bench/), so
 * config.ts defaults `--standby-launches` to the core count.
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
