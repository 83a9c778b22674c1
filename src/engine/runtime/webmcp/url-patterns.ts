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

/**
 * Whether `text` is `pattern` with each `*` standing for any run of characters. Literal pieces
 * are found left to right with indexOf (the leftmost fit of each is the one to take), so a
 * tenant's pattern costs time linear in the URL per piece — a `*`-glob compiled to a regex
 * (`.*a.*a.*…`) backtracks exponentially on a crafted URL, on the engine's event loop.
 */
function globMatches(pattern: string, text: string): boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    if (!piece) continue;
    const i = text.indexOf(piece, at);
    if (i < 0 || i + piece.length > end) return false;
    at = i + piece.length;
  }
  return true;
}

/** The URL as patterns see it: without its fragment. */
export function withoutFragment(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

/** Whether any of `patterns` matches `url` (its fragment ignored). */
export function matchesAny(patterns: readonly string[], url: string): boolean {
  const u = withoutFragment(url);
  return patterns.some((p) => globMatches(p, u));
}
