/**
 * Keeps the layer rules of ARCHITECTURE.md true: scans every import under src/ and fails on a
 * new violation. Violations that already existed when a rule was written are listed in
 * KNOWN_VIOLATIONS with the reason they are tolerated, so they stay visible; an entry that no
 * longer occurs fails too, so the list only shrinks. The checker's own tests feed it synthetic
 * files to prove each rule actually fires.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, readImports, resolveTarget, type SourceFile, type Violation } from './import-rules.js';

const root = path.resolve(import.meta.dirname, '../..');

/** `file → specifier` pairs that break a rule today; fix the code and delete the entry. */
const KNOWN_VIOLATIONS: Array<{ file: string; specifier: string; why: string }> = [
];

function sourceFiles(dir: string): SourceFile[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    if (!/\.(ts|tsx|mts|js|jsx|mjs)$/.test(e.name)) return [];
    return [{ path: path.relative(root, p).split(path.sep).join('/'), imports: readImports(fs.readFileSync(p, 'utf8')) }];
  });
}

const key = (v: { file: string; specifier: string }) => `${v.file} → ${v.specifier}`;
const show = (v: Violation) => `${key(v)}  [${v.rule}] ${v.reason}`;

describe('import boundaries of src/', () => {
  const files = sourceFiles(path.join(root, 'src'));
  const violations = checkImports(files);
  const known = new Set(KNOWN_VIOLATIONS.map(key));

  it('scans the real tree', () => {
    expect(files.some((f) => f.path === 'src/engine/engine.ts')).toBe(true);
    expect(files.find((f) => f.path === 'src/engine/engine.ts')!.imports).toContain('./config.js');
  });

  it('has no new violations', () => {
    expect(violations.filter((v) => !known.has(key(v))).map(show)).toEqual([]);
  });

  it('lists no known violation that is gone (delete fixed entries)', () => {
    const present = new Set(violations.map(key));
    // An entry for a file that does not exist (yet) in this checkout is not stale.
    const exists = (f: string) => fs.existsSync(path.join(root, f));
    expect(KNOWN_VIOLATIONS.filter((k) => exists(k.file) && !present.has(key(k))).map(key)).toEqual([]);
  });
});

describe('import checker', () => {
  const check = (file: string, ...imports: string[]) => checkImports([{ path: file, imports }]).map((v) => `${v.rule}: ${v.specifier}`);

  it('reads static, type-only, re-export, dynamic and require imports', () => {
    const text = `import a from 'a';\nimport type { B } from './b.js';\nexport { c } from '../c.js';\nconst d = await import('node:fs');\nconst e = require('e');\n`;
    expect(readImports(text)).toEqual(['a', './b.js', '../c.js', 'node:fs', 'e']);
  });

  it('resolves specifiers to builtins, packages and repository paths', () => {
    expect(resolveTarget('src/engine/api/x.ts', 'node:path')).toEqual({ kind: 'builtin', name: 'path' });
    expect(resolveTarget('src/engine/api/x.ts', 'fs/promises')).toEqual({ kind: 'builtin', name: 'fs/promises' });
    expect(resolveTarget('src/engine/api/x.ts', '@onkernel/sdk/resources')).toEqual({ kind: 'package', name: '@onkernel/sdk' });
    expect(resolveTarget('src/engine/api/x.ts', '../../renderer/src/app.js')).toEqual({ kind: 'file', path: 'src/renderer/src/app' });
    expect(resolveTarget('src/renderer/src/a.tsx', './logo.svg?url')).toEqual({ kind: 'file', path: 'src/renderer/src/logo.svg' });
  });

  it('catches the engine importing electron, react or desktop code', () => {
    expect(check('src/engine/api/x.ts', 'electron', 'react-dom/client', '../../main/index.js', '../domain/ids.js', 'fastify')).toEqual([
      'engine-is-plain-node: electron',
      'engine-is-plain-node: react-dom/client',
      'engine-is-plain-node: ../../main/index.js',
    ]);
  });

  it('catches the renderer reaching outside src/renderer and src/shared', () => {
    expect(check('src/renderer/src/app.tsx', '../../engine/index.js', 'electron', 'node:fs', '../../shared/clock.js', './view.js', 'react')).toEqual([
      'renderer-imports-own-and-shared: ../../engine/index.js',
      'renderer-imports-own-and-shared: electron',
      'renderer-imports-own-and-shared: node:fs',
    ]);
  });

  it('catches src/shared importing Node or other layers', () => {
    expect(check('src/shared/wire/x.ts', 'node:crypto', '../../engine/config.js', '../clock.js', '@sinclair/typebox')).toEqual([
      'shared-is-browser-safe: node:crypto',
      'shared-is-browser-safe: ../../engine/config.js',
    ]);
  });

  it('catches main importing the renderer and preload importing the engine', () => {
    expect(check('src/main/index.ts', '../renderer/src/main.js', '../engine/index.js', 'electron')).toEqual(['main-not-renderer: ../renderer/src/main.js']);
    expect(check('src/preload/index.ts', '../engine/index.js', '../shared/ipc/channels.js', 'electron')).toEqual(['preload-is-a-bridge: ../engine/index.js']);
  });

  it('catches engine sub-layers importing upwards', () => {
    expect(check('src/engine/domain/org/x.ts', '../../api/projects.js', '../../http/server.js', '../../http/api-error.js', '../../engine.js', '../../context.js', '../../store/schema.js')).toEqual([
      'domain-below-api: ../../api/projects.js',
      'domain-below-api: ../../http/server.js',
      'domain-below-api: ../../engine.js',
    ]);
    expect(check('src/engine/runtime/chromium/x.ts', '../../domain/sessions/session-manager.js', '../../domain/sessions/session-handle.js', '../../http/auth.js', '../../http/pagination.js', '../../feature.js', '../../store/schema.js')).toEqual([
      'runtime-below-domain: ../../domain/sessions/session-manager.js',
      'runtime-below-domain: ../../http/pagination.js',
    ]);
    expect(check('src/engine/events/x.ts', '../runtime/chromium/y.js', '../domain/org/projects.js', '../store/database.js')).toEqual([
      'events-below-domain: ../runtime/chromium/y.js',
      'events-below-domain: ../domain/org/projects.js',
    ]);
    expect(check('src/engine/store/migrations/x.ts', '../../domain/org/name-key.js', '../../http/api-error.js', '../../config.js', '../database.js')).toEqual([
      'store-is-the-bottom: ../../domain/org/name-key.js',
      'store-is-the-bottom: ../../http/api-error.js',
    ]);
  });

  it('lets the top layers import downwards', () => {
    expect(check('src/engine/api/projects.ts', '../domain/org/projects.js', '../http/pagination.js', '../context.js', '../runtime/x.js')).toEqual([]);
    expect(check('src/engine/engine.ts', './http/server.js', './features.js')).toEqual([]);
  });
});
