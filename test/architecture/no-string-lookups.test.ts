/**
 * What a feature uses is visible from its signature (issue 13 items 1 and 3): services come typed
 * from compose.ts (`Feature<'sessions' | …>`), never by name from a bag (`ctx.services.x`,
 * `ctx.services['x']`), and a route's request is typed by its schema, never cast
 * (`req.body as …`). This greps all of src/ for both.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const PATTERNS: Array<{ what: string; re: RegExp }> = [
  { what: 'string-keyed service lookup', re: /\bctx\.services\b/ },
  { what: 'request cast', re: /\b(?:req|request)\.(?:body|params|query)\s+as\b/ },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx|mts|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** `file:line: what: text` of every hit in `files`. */
export function stringLookups(files: Array<{ path: string; text: string }>): string[] {
  return files.flatMap((f) =>
    f.text.split('\n').flatMap((line, i) => PATTERNS.filter((p) => p.re.test(line)).map((p) => `${f.path}:${i + 1}: ${p.what}: ${line.trim()}`)),
  );
}

describe('string service lookups and request casts in src/', () => {
  it('finds planted ones (the check works)', () => {
    const planted = [
      'const s = ctx.services.sessions as SessionManager;',
      "const p = this.ctx.services['pools'];",
      'const b = req.body as { name: string };',
      'const q = (request.query as { p: string }).p;',
      'const id = req.params as { id: string };',
    ].join('\n');
    expect(stringLookups([{ path: 'x.ts', text: planted }])).toEqual([
      'x.ts:1: string-keyed service lookup: const s = ctx.services.sessions as SessionManager;',
      "x.ts:2: string-keyed service lookup: const p = this.ctx.services['pools'];",
      'x.ts:3: request cast: const b = req.body as { name: string };',
      'x.ts:4: request cast: const q = (request.query as { p: string }).p;',
      'x.ts:5: request cast: const id = req.params as { id: string };',
    ]);
    expect(stringLookups([{ path: 'y.ts', text: 'register(app, ctx, { sessions }) {\nconst b = req.body;\nengine.services.sessions;' }])).toEqual([]);
  });

  it('has none', () => {
    const files = sourceFiles(path.join(root, 'src')).map((p) => ({ path: path.relative(root, p), text: fs.readFileSync(p, 'utf8') }));
    expect(stringLookups(files)).toEqual([]);
  });
});
