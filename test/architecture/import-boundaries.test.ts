/**
 * Keeps the import map of ARCHITECTURE.md true (test/architecture/import-rules.ts): scans every
 * import under src/ and fails on a new violation, direct or transitive. Violations that existed
 * when a rule was written are listed in KNOWN_VIOLATIONS with the reason they are tolerated, so
 * they stay visible; an entry that no longer occurs fails too, so the list only shrinks. The
 * checker is pure, so the second half plants a violation of every rule of every layer in
 * synthetic `{path, imports}` input and watches it fire. IMPORT_GRAPH=1 prints the layer graph.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, formatGraph, layerGraph, ranks } from './import-graph.js';
import { checkImports, LAYERS, layerOf, readImports, readTypeOnlyImports, resolveTarget, type Layer, type SourceFile, type Violation } from './import-rules.js';
import { repoRoot as root, sourceFiles } from './source-tree.js';

/** `file → specifier` pairs that break a rule today; fix the code and delete the entry. */
const KNOWN_VIOLATIONS: Array<{ file: string; specifier: string; why: string }> = [
  // Type-only uses of Fastify's request/instance types in runtime/ (no Fastify code loads: the
  // transitive check passes). It wants a narrow type of its own (as domain/ got: a CallerRequest,
  // a MultipartForm) so that runtime/ knows nothing of the HTTP server.
  {
    file: 'src/engine/runtime/session-fs/multipart-upload.ts',
    specifier: 'fastify',
    why: 'type-only FastifyInstance/FastifyRequest in runtime/',
  },
  { file: 'src/engine/runtime/session-fs/multipart-upload.ts', specifier: '@fastify/multipart', why: 'type-only Multipart part type in runtime/' },
];

const key = (v: { file: string; specifier: string }) => `${v.file} → ${v.specifier}`;
const show = (v: Violation) => `${key(v)}  [${v.rule}] ${v.reason}`;

describe('import map of src/', () => {
  const files = sourceFiles();
  const violations = checkImports(files);
  const known = new Set(KNOWN_VIOLATIONS.map(key));

  it('scans the real tree, type-only imports told apart', () => {
    const engine = files.find((f) => f.path === 'src/engine/engine.ts');
    expect(engine?.imports).toContain('./config.js');
    const context = files.find((f) => f.path === 'src/engine/context.ts')!;
    expect(context.typeOnly).toContain('fastify');
  });

  it('claims every file under src/ for exactly one layer', () => {
    expect(files.filter((f) => !layerOf(f.path)).map((f) => f.path)).toEqual([]);
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

  it('has a layer graph whose value imports only point down', () => {
    const g = layerGraph(files);
    if (process.env.IMPORT_GRAPH) console.log(formatGraph(g));
    expect(cycles(g.value)).toEqual([]);
    // engine → api → domain → runtime → store/shared, in that order.
    const depth = (n: string) => ranks(g.value, Object.keys(LAYERS)).findIndex((r) => r.includes(n));
    const chain = ['engine', 'engine/api', 'engine/domain', 'engine/runtime', 'shared'].map(depth);
    expect(chain).toEqual([...chain].sort((a, b) => a - b));
    expect(new Set(chain).size).toBe(chain.length);
    expect(depth('engine/store')).toBeGreaterThan(depth('engine/domain'));
  });
});

describe('import checker: reading', () => {
  it('reads static, type-only, re-export, dynamic and require imports', () => {
    const text = `import a from 'a';\nimport type { B } from './b.js';\nexport { c } from '../c.js';\nconst d = await import('node:fs');\nconst e = require('e');\n`;
    expect(readImports(text)).toEqual(['a', './b.js', '../c.js', 'node:fs', 'e']);
  });

  it('tells type-only imports from value imports', () => {
    const text = [
      `import type { A } from 'a';`,
      `import { type B, type C } from 'b';`,
      `import { type D, e } from 'de';`,
      `export type { F } from './f.js';`,
      `import type { G } from 'g';`,
      `import 'g';`,
      `declare module 'h' { interface X { y: 1 } }`,
      `const i = await import('i');`,
    ].join('\n');
    expect(readTypeOnlyImports(text).sort()).toEqual(['./f.js', 'a', 'b', 'h']);
  });

  it('resolves specifiers to builtins, packages and repository paths', () => {
    expect(resolveTarget('src/engine/api/x.ts', 'node:path')).toEqual({ kind: 'builtin', name: 'path' });
    expect(resolveTarget('src/engine/api/x.ts', 'fs/promises')).toEqual({ kind: 'builtin', name: 'fs/promises' });
    expect(resolveTarget('src/engine/api/x.ts', '@onkernel/sdk/resources')).toEqual({ kind: 'package', name: '@onkernel/sdk' });
    expect(resolveTarget('src/engine/api/x.ts', '../../renderer/src/app.js')).toEqual({ kind: 'file', path: 'src/renderer/src/app' });
    expect(resolveTarget('src/renderer/src/a.tsx', './logo.svg?url')).toEqual({ kind: 'file', path: 'src/renderer/src/logo.svg' });
  });

  it('puts a file in the layer with the longest matching path', () => {
    expect(layerOf('src/engine/http/auth.ts')).toBe('engine/contracts');
    expect(layerOf('src/engine/http/server.ts')).toBe('engine/http');
    expect(layerOf('src/main/index.ts')).toBe('main/electron');
    expect(layerOf('src/main/engine-host.ts')).toBe('main');
    expect(layerOf('src/engine/engine.ts')).toBe('engine');
    expect(layerOf('src/engine/engine-version.ts')).toBe('engine/contracts');
    expect(layerOf('test/helpers/engine.ts')).toBeUndefined();
  });
});

/** Violations of synthetic files, as `rule: file → specifier`. */
const check = (...files: Array<[string, ...string[]]>) =>
  checkImports(files.map(([p, ...imports]) => ({ path: p, imports }))).map((v) => `${v.rule}: ${v.file} → ${v.specifier}`);
const checkFiles = (files: SourceFile[]) => checkImports(files).map((v) => `${v.rule}: ${v.file} → ${v.specifier}`);

/** A file of a layer (a made-up name inside its first path) and a relative specifier to `target` from it. */
const fileIn = (layer: Layer) =>
  (/\.[a-z]+$/.test(layer.paths[0]) ? layer.paths[0] : `${layer.paths[0]}${layer.paths[0].split('/').length > 2 ? '' : '/x'}.ts`).replace(/(\.ts)?$/, '.ts');
const rel = (from: string, target: string) => {
  const r = path.posix.relative(path.posix.dirname(from), target);
  return (r.startsWith('.') ? r : `./${r}`) + '.js';
};

describe('import checker: every rule of every layer fires on a planted violation', () => {
  const everyLayerPath = Object.values(LAYERS).flatMap((l) => l.paths);

  for (const [name, layer] of Object.entries(LAYERS)) {
    const from = fileIn(layer);
    describe(name, () => {
      it('is where its first path says', () => {
        expect(layerOf(from)).toBe(name);
      });

      it('refuses a repository path outside its `may` list, and accepts the ones inside', () => {
        const within = (p: string, prefix: string) => p === prefix || p.startsWith(prefix + '/');
        const allowed = (p: string) => layerOf(p) === name || layer.may.some((m) => within(p, m));
        const refused = everyLayerPath.filter((p) => !allowed(p)).map((p) => `${p}/y`.replace(/^(src\/[a-z]+\/[a-z-]+)\/y$/, '$1/y'));
        const target = refused.find((p) => layerOf(p) !== name) ?? 'test/helpers/engine';
        expect(check([from, rel(from, target)])).toEqual([`${name}: imports: ${from} → ${rel(from, target)}`]);
        expect(check([from, rel(from, 'test/helpers/engine')])).toEqual([`${name}: imports: ${from} → ${rel(from, 'test/helpers/engine')}`]);
        for (const ok of layer.may.filter((m) => m !== 'package.json')) expect(check([from, rel(from, `${ok}/z`)]), ok).toEqual([]);
      });

      it('refuses a package outside its list, and a test package in app code', () => {
        expect(check([from, 'left-pad'])).toEqual([`${name}: packages: ${from} → left-pad`]);
        expect(check([from, 'vitest'])).toEqual([`${name}: tests: ${from} → vitest`]);
        for (const p of layer.packages) expect(check([from, p]), p).toEqual([]);
      });

      it(layer.node ? 'may import Node builtins' : 'refuses Node builtins', () => {
        expect(check([from, 'node:fs'])).toEqual(layer.node ? [] : [`${name}: node: ${from} → node:fs`]);
      });

      const never = layer.never?.[0];
      if (never || !layer.node) {
        it(`refuses what it must never load (${never ?? 'node:*'}) through a chain of value imports`, () => {
          // A file this layer may import, importing another, which imports the forbidden module.
          const hop1 = `${layer.paths[0].replace(/\.[a-z]+$/, '')}-hop1.ts`;
          const hop2 = `${layer.paths[0].replace(/\.[a-z]+$/, '')}-hop2.ts`;
          const forbidden = never ?? 'node:fs';
          const files = [
            { path: from, imports: [rel(from, hop1.replace(/\.ts$/, ''))] },
            { path: hop1, imports: [rel(hop1, hop2.replace(/\.ts$/, ''))] },
            // hop2 is in the same layer; its own direct import is a separate (direct) violation.
            { path: hop2, imports: [forbidden] },
          ];
          const found = checkFiles(files).filter((v) => v.includes(': reaches: '));
          expect(found).toContain(`${name}: reaches: ${from} → ${rel(from, hop1.replace(/\.ts$/, ''))}`);
          // The same chain through `import type` loads nothing.
          expect(checkFiles([{ ...files[0], typeOnly: files[0].imports }, ...files.slice(1)]).filter((v) => v.startsWith(`${name}: reaches: ${from}`))).toEqual(
            [],
          );
        });
      }

      if (layer.types?.length) {
        it('accepts its `types` paths for `import type` only', () => {
          const target = rel(from, `${layer.types![0]}/t`);
          expect(checkFiles([{ path: from, imports: [target], typeOnly: [target] }])).toEqual([]);
          expect(checkFiles([{ path: from, imports: [target] }])).toEqual([`${name}: imports: ${from} → ${target}`]);
        });
      }
    });
  }
});

describe('import checker: the rules issue 13 asks for, spelled out', () => {
  it('keeps fastify out of domain/ and runtime/, and lets api/ and http/ use it', () => {
    expect(check(['src/engine/domain/org/x.ts', 'fastify', '@fastify/multipart'], ['src/engine/runtime/chromium/x.ts', 'fastify'])).toEqual([
      'engine/domain: packages: src/engine/domain/org/x.ts → fastify',
      'engine/domain: packages: src/engine/domain/org/x.ts → @fastify/multipart',
      'engine/runtime: packages: src/engine/runtime/chromium/x.ts → fastify',
    ]);
    expect(check(['src/engine/api/x.ts', 'fastify', '@fastify/multipart'], ['src/engine/http/y.ts', 'fastify'])).toEqual([]);
  });

  it('refuses fastify in domain/ even for types only, and domain/ → http/ (issue 26 item 6)', () => {
    const typeOnly = (p: string, ...imports: string[]): SourceFile => ({ path: p, imports, typeOnly: imports });
    expect(
      checkFiles([
        typeOnly('src/engine/domain/org/access.ts', 'fastify'),
        typeOnly('src/engine/domain/extensions/extension-uploads.ts', '@fastify/multipart', '../../http/request-context.js'),
      ]),
    ).toEqual([
      'engine/domain: packages: src/engine/domain/org/access.ts → fastify',
      'engine/domain: packages: src/engine/domain/extensions/extension-uploads.ts → @fastify/multipart',
      'engine/domain: imports: src/engine/domain/extensions/extension-uploads.ts → ../../http/request-context.js',
    ]);
  });

  it('allows electron only in the listed main files, never in the engine, shared or renderer', () => {
    expect(
      check(
        ['src/main/index.ts', 'electron'],
        ['src/main/ipc-main.ts', 'electron'],
        ['src/main/electron-cipher.ts', 'electron'],
        ['src/preload/index.ts', 'electron'],
      ),
    ).toEqual([]);
    expect(
      check(
        ['src/main/engine-host.ts', 'electron'],
        ['src/engine/api/x.ts', 'electron'],
        ['src/shared/x.ts', 'electron'],
        ['src/renderer/src/x.tsx', 'electron'],
      ),
    ).toEqual([
      'main: packages: src/main/engine-host.ts → electron',
      'engine/api: packages: src/engine/api/x.ts → electron',
      'shared: packages: src/shared/x.ts → electron',
      'renderer: packages: src/renderer/src/x.tsx → electron',
    ]);
  });

  it('allows React and zustand only in the renderer', () => {
    expect(check(['src/renderer/src/x.tsx', 'react', 'zustand'])).toEqual([]);
    expect(check(['src/main/x.ts', 'react'], ['src/shared/x.ts', 'zustand'], ['src/engine/domain/x.ts', 'react-dom'])).toEqual([
      'main: packages: src/main/x.ts → react',
      'shared: packages: src/shared/x.ts → zustand',
      'engine/domain: packages: src/engine/domain/x.ts → react-dom',
    ]);
  });

  it('catches renderer → shared → a shared file that imports node:fs (the closure)', () => {
    const found = check(['src/renderer/src/app.tsx', '../../shared/a.js'], ['src/shared/a.ts', './b.js'], ['src/shared/b.ts', 'node:fs']);
    expect(found).toEqual([
      'shared: node: src/shared/b.ts → node:fs',
      'renderer: reaches: src/renderer/src/app.tsx → ../../shared/a.js',
      'shared: reaches: src/shared/a.ts → ./b.js',
    ]);
  });

  it('catches domain → runtime → a file that loads fastify, not one that only names its types', () => {
    const files = [
      { path: 'src/engine/domain/d.ts', imports: ['../runtime/r.js'] },
      { path: 'src/engine/runtime/r.ts', imports: ['../context.js'] },
      { path: 'src/engine/context.ts', imports: ['fastify'] },
    ];
    expect(checkFiles(files)).toEqual([
      'engine/domain: reaches: src/engine/domain/d.ts → ../runtime/r.js',
      'engine/runtime: reaches: src/engine/runtime/r.ts → ../context.js',
    ]);
    expect(checkFiles([...files.slice(0, 2), { ...files[2], typeOnly: ['fastify'] }])).toEqual([]);
  });

  it('keeps runtime/ below domain/ and off http/, and domain/ off http/ and api/', () => {
    expect(
      check([
        'src/engine/runtime/x/y.ts',
        '../../domain/sessions/session-manager.js',
        '../../domain/org/auth-context.js',
        '../../http/auth.js',
        '../../http/api-error.js',
        '../../context.js',
        '../../store/schema.js',
        '../../../shared/errors/domain-error.js',
      ]),
    ).toEqual([
      'engine/runtime: imports: src/engine/runtime/x/y.ts → ../../domain/sessions/session-manager.js',
      'engine/runtime: imports: src/engine/runtime/x/y.ts → ../../domain/org/auth-context.js',
      'engine/runtime: imports: src/engine/runtime/x/y.ts → ../../http/auth.js',
      'engine/runtime: imports: src/engine/runtime/x/y.ts → ../../http/api-error.js',
    ]);
    expect(
      check([
        'src/engine/domain/x/y.ts',
        '../../http/api-error.js',
        '../../http/server.js',
        '../../api/projects.js',
        '../../engine.js',
        '../../http/auth.js',
        '../../http/upgrade-identity.js',
        '../../runtime/z.js',
        '../org/auth-context.js',
        '../../../shared/errors/domain-error.js',
      ]),
    ).toEqual([
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../http/api-error.js',
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../http/server.js',
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../api/projects.js',
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../engine.js',
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../http/auth.js',
      'engine/domain: imports: src/engine/domain/x/y.ts → ../../http/upgrade-identity.js',
    ]);
  });

  it('keeps unit tests out of the app and away from engines, browsers and databases', () => {
    expect(check(['src/engine/domain/x.test.ts', 'vitest', 'fast-check', './x.js'], ['src/engine/domain/x.ts'])).toEqual([]);
    expect(check(['src/engine/domain/x.ts', './x.test.js'])).toEqual(['engine/domain: tests: src/engine/domain/x.ts → ./x.test.js']);
    expect(check(['src/engine/domain/x.test.ts', '../../../test/helpers/engine.js'])).toEqual([
      'engine/domain: imports: src/engine/domain/x.test.ts → ../../../test/helpers/engine.js',
    ]);
    expect(
      check(['src/engine/domain/x.test.ts', './x.js'], ['src/engine/domain/x.ts', '../store/database.js'], ['src/engine/store/database.ts', 'better-sqlite3']),
    ).toEqual(['engine/domain: reaches: src/engine/domain/x.test.ts → ./x.js']);
  });

  it('claims no file outside src/ and flags a src/ file no layer claims', () => {
    expect(check(['src/elsewhere/x.ts'])).toEqual(['map: unclaimed: src/elsewhere/x.ts → ']);
  });
});
