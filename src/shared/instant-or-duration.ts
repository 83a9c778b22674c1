/**
 * The one grammar for time-window query values (`since`, `until` of telemetry, deployment and
 * invocation endpoints): an RFC 3339 timestamp, or a Go-style duration counted back from now
 * (`250ms`, `90s`, `5m`, `1h30m`, also `ns`/`us`/`µs`/`d`). Pure and browser-safe, so the UI
 * can check a filter before sending it; callers turn `undefined` into their own 400.
 */

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/g;
// Seconds are optional and `t`/`z`/space are accepted, as Go's and most clients' formatters vary.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds `value` names relative to `nowMs`, or undefined when it is neither form. */
export function parseInstantOrDuration(value: string, nowMs: number): number | undefined {
  const s = value.trim();
  if (DURATION.test(s)) {
    let ms = 0;
    for (const m of s.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2]];
    return nowMs - ms;
  }
  if (RFC3339.test(s)) {
    // Date.parse keeps milliseconds; finer digits (RFC 3339 nanoseconds) are cut, not rejected.
    const t = Date.parse(s.replace(/(\.\d{3})\d+/, '$1'));
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}
