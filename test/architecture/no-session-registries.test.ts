/**
 * Issue 26: what a running session holds lives in its SessionScope (a slot or an owned step),
 * never in a module-level `Map`/`Set` keyed by session id that someone must remember to empty.
 * This scans runtime/ and domain/ for `new Map(`/`new Set(` held at module scope (a top-level
 * variable or a class's static field) and fails on any outside a short allowlist of caches that
 * are not per session, each with its reason. Per-engine services keep their maps as instance
 * fields (made once per engine), which this does not flag; neither does it flag constant tables
 * (SCREAMING_CASE names, e.g. a `Set` of CDP methods).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './source-tree.js';

const FOLDERS = ['src/engine/runtime', 'src/engine/domain'];

/** `file: name` → why a module-level collection there is not per-session state. */
const ALLOWED: Record<string, string> = {
  'src/engine/runtime/chromium/headless-windows.ts: learnedFrames': 'window frames learned per Chromium executable: a hint for every later launch',
  'src/engine/runtime/sandbox/jail-visible.ts: staged': 'engine assets staged once where every jail can see them (by asset, not by session)',
  'src/engine/domain/sessions/stealth-user-agent.ts: majorCache': 'the Chromium major version per executable',
  'src/engine/runtime/cdp/location-emulation.ts: applying':
    'ids with a location apply in flight (an entry only while one runs): sessionDto reads it from a row without the handle; becomes `handle.scope.peek` once session-manager passes the handle',
};

interface Found {
  key: string;
  line: number;
}

function isCollection(e: ts.Expression | undefined): boolean {
  return !!e && ts.isNewExpression(e) && ts.isIdentifier(e.expression) && (e.expression.text === 'Map' || e.expression.text === 'Set');
}

/** Module-scope `new Map`/`new Set`: top-level variables and static class fields. */
export function moduleCollections(file: string, text: string): Found[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Found[] = [];
  const add = (name: ts.Node, at: ts.Node) =>
    /^[A-Z][A-Z0-9_]*$/.test(name.getText(src)) ||
    out.push({ key: `${file}: ${name.getText(src)}`, line: src.getLineAndCharacterOfPosition(at.getStart(src)).line + 1 });
  for (const st of src.statements) {
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (isCollection(d.initializer)) add(d.name, d);
    if (ts.isClassDeclaration(st))
      for (const m of st.members)
        if (ts.isPropertyDeclaration(m) && m.modifiers?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword) && isCollection(m.initializer)) add(m.name, m);
  }
  return out;
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
  });
}

describe('no module-level per-session registries in runtime/ and domain/', () => {
  const found = FOLDERS.flatMap((f) => walk(path.join(repoRoot, f))).flatMap((abs) =>
    moduleCollections(path.relative(repoRoot, abs).split(path.sep).join('/'), fs.readFileSync(abs, 'utf8')),
  );

  it('has none outside the allowlist (keep a session service in a slot: handle.scope.get)', () => {
    expect(found.filter((f) => !(f.key in ALLOWED)).map((f) => `${f.key} (line ${f.line})`)).toEqual([]);
  });

  it('lists no allowlisted entry that is gone', () => {
    const present = new Set(found.map((f) => f.key));
    expect(Object.keys(ALLOWED).filter((k) => !present.has(k))).toEqual([]);
  });

  it('finds top-level and static collections, not instance fields or locals', () => {
    const text = `const a = new Map<string, X>();\nexport const b = new Set();\nclass C {\n  private static readonly c = new Map();\n  private d = new Map();\n  f() { const e = new Set(); }\n}\nconst w = new WeakMap();\nconst TABLE = new Set(['x']);\n`;
    expect(moduleCollections('x.ts', text).map((f) => f.key)).toEqual(['x.ts: a', 'x.ts: b', 'x.ts: c']);
  });
});
