/**
 * A generated page keeps its hand-written text; only the part between two marker comments is
 * rewritten, so `npm run docs` and the "pages are current" test (test/docs/) agree on one region.
 */

export function startMarker(name: string): string {
  return `<!-- generated:${name} start — written by \`npm run docs\` (scripts/docs/gen-docs.ts); edit the source, not this block -->`;
}

export function endMarker(name: string): string {
  return `<!-- generated:${name} end -->`;
}

/** `page` with its `name` block replaced by `body`; a page without the markers is an error (they are its contract). */
export function replaceBlock(page: string, name: string, body: string): string {
  const start = page.indexOf(startMarker(name));
  const end = page.indexOf(endMarker(name));
  if (start < 0 || end < start) throw new Error(`the page has no generated:${name} block (its markers are missing or out of order)`);
  return `${page.slice(0, start)}${startMarker(name)}\n\n${body.trim()}\n\n${page.slice(end)}`;
}
