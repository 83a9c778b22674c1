/**
 * The URL matchers of custom WebMCP tools (§14.3 `match.url_patterns`): a pattern is a whole
 * URL in which `*` stands for any run of characters (`/` included) and everything else is
 * literal, e.g. `https://shop.example/*` or `*://*.example.com/cart*`. It is matched against
 * a document's URL without its fragment. Kernel does not spell out its syntax; a glob covers
 * the examples its docs give and is matched here, in the engine, without running tenant code.
 */

export const MAX_PATTERN_LENGTH = 2048;

/** Why a pattern is unusable, or undefined when it is fine. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string' || pattern.length === 0) return 'must be a non-empty string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (/\s/.test(pattern)) return 'must not contain whitespace';
  if (pattern.includes('#')) return 'must not contain a fragment (#): documents are matched without theirs';
  return undefined;
}

const compiled = new Map<string, RegExp>();

function regexOf(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${body}$`, 's');
    // A handful of tools per session: the cache only needs to stop runaway growth.
    if (compiled.size > 4096) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** The URL as patterns see it: without its fragment. */
export function withoutFragment(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

/** Whether any of `patterns` matches `url` (its fragment ignored). */
export function matchesAny(patterns: readonly string[], url: string): boolean {
  const u = withoutFragment(url);
  return patterns.some((p) => regexOf(p).test(u));
}
