/**
 * Percentiles as BrowserArena's DuckDB queries compute them (MEDIAN / quantile_cont: linear
 * interpolation between the two nearest ranks), so our p50 reads like theirs.
 */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const p50 = (xs: number[]) => quantile(xs, 0.5);
export const p95 = (xs: number[]) => quantile(xs, 0.95);
export const p99 = (xs: number[]) => quantile(xs, 0.99);
