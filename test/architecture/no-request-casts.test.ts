/**
 * Routes are registered on the TypeBox-typed app (`App` in src/engine/feature.ts), so a
 * handler's body, params, query and headers are typed by the route's schema (shared/wire).
 * A cast such as `req.body as {...}` would silently type a field the schema does not declare;
 * this keeps src/engine free of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const CAST = /\b(?:req|request)\.(?:body|params|query|headers)\s+as\b/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|mts)$/.test(e.name) ? [p] : [];
  });
}

/** `file:line: text` of every request cast in `files`. */
export function requestCasts(files: Array<{ path: string; text: string }>): string[] {
  return files.flatMap((f) => f.text.split('\n').flatMap((line, i) => (CAST.test(line) ? [`${f.path}:${i + 1}: ${line.trim()}`] : [])));
}

describe('request casts in src/engine', () => {
  it('finds a planted cast (the check works)', () => {
    expect(
      requestCasts([{ path: 'x.ts', text: 'const a = 1;\nconst b = req.body as { name: string };\nconst q = (request.query as { p: string }).p;' }]),
    ).toEqual(['x.ts:2: const b = req.body as { name: string };', 'x.ts:3: const q = (request.query as { p: string }).p;']);
    expect(requestCasts([{ path: 'y.ts', text: 'const b = req.body;\nconst t = req.headers["x"] as string;' }])).toEqual([]);
  });

  it('has none', () => {
    const files = sourceFiles(path.join(root, 'src/engine')).map((p) => ({ path: path.relative(root, p), text: fs.readFileSync(p, 'utf8') }));
    expect(requestCasts(files)).toEqual([]);
  });
});
