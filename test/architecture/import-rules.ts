/**
 * The import rules of ARCHITECTURE.md as one map (LAYERS), and a pure checker that applies it
 * to a list of source files. It plays the role of Playwright's DEPS.list: every import (static,
 * dynamic, re-export, `import type`, require) is resolved to a Node builtin, an npm package or a
 * repository path, and tested against the entry of the importing file's layer:
 *
 * - `may`: the repository paths (folders, or files without extension) it may import. A file
 *   may always import its own layer. Anything else in the repository is refused, including
 *   test/ helpers and files no layer claims.
 * - `types`: paths it may import with `import type` only (erased at build: no code loads).
 * - `packages`: the npm packages it may import, by name; any other package is refused, so a
 *   new dependency of a layer is a visible edit of this map.
 * - `node`: whether Node builtins may be imported (false for code that runs in a browser).
 * - `never`: packages that must not load into this layer even indirectly: the checker follows
 *   value imports (not `import type`) through every file and reports the chain, e.g.
 *   renderer → shared/x → shared/y → node:fs. Layers without Node builtins never reach one.
 *
 * A file belongs to the layer with the longest matching path. Unit tests (`*.test.ts` beside a
 * module in src/) follow their folder's layer, may also import TEST_PACKAGES, and never reach a
 * process, a browser or a database; no other file may import a test file or a test package, so
 * unit tests cannot end up in the app bundle.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export interface SourceFile {
  /** Repository-relative, `/`-separated, e.g. `src/engine/api/projects.ts`. */
  path: string;
  /** Module specifiers exactly as written. */
  imports: string[];
  /** The subset of `imports` used only by `import type` / `export type` (no code is loaded). */
  typeOnly?: string[];
}

export type Target = { kind: 'builtin'; name: string } | { kind: 'package'; name: string } | { kind: 'file'; path: string };

export interface Layer {
  /** Repository paths whose files belong to this layer (folders or extensionless files). */
  paths: string[];
  /** Repository paths it may import (besides its own layer). */
  may: string[];
  /** Repository paths it may import with `import type` only. */
  types?: string[];
  /** npm packages it may import directly. */
  packages: string[];
  /** Whether it may import Node builtins. */
  node: boolean;
  /** Packages that must not load into it through any chain of value imports. */
  never?: string[];
  /** Why the layer is bounded this way (shown with each violation). */
  why: string;
}

export interface Violation {
  /** `<layer>: <what>`, e.g. `engine/domain: packages`. */
  rule: string;
  file: string;
  specifier: string;
  reason: string;
}

// ── the map ─────────────────────────────────────────────────────────────────────────────────

/** What every engine feature is written against: the request context, the Feature interface, the services' types, the config. */
const ENGINE_CONTRACTS = [
  'src/engine/context',
  'src/engine/feature',
  'src/engine/route',
  'src/engine/services',
  'src/engine/config',
  'src/engine/engine-version',
];
/** http/ files below api/: the request's AuthContext, and the WebSocket upgrade router and its identity note. */
const HTTP_CONTRACTS = ['src/engine/http/auth', 'src/engine/http/upgrade-identity', 'src/engine/http/upgrade-router'];
/** Who is calling (AuthContext, Credential, bearer parsing): defined in domain/ so domain/ needs nothing of http/ (issue 13 item 2); http/auth re-exports it. */
const CALLER_CONTRACT = ['src/engine/domain/org/auth-context'];
/**
 * The Error object as api/ spells it (a re-export of shared/errors) and its rendering, which the
 * contracts above use. In the contracts layer so the graph has no cycle, but not importable by
 * domain/ or runtime/: they raise shared/errors DomainErrors (issue 13 item 2).
 */
const HTTP_ERRORS = ['src/engine/http/api-error', 'src/engine/http/error-handler'];
const UI_PACKAGES = ['electron', 'react', 'react-dom', 'zustand', '@xterm/xterm', '@xterm/addon-fit'];
const FASTIFY = ['fastify', '@fastify/cookie', '@fastify/multipart', '@fastify/static', '@fastify/swagger', '@fastify/type-provider-typebox'];
const WIRE = ['@sinclair/typebox'];
export const TEST_PACKAGES = ['vitest', 'fast-check'];
/** What a unit test must not load: they run in seconds without a process, browser or database. */
const UNIT_TEST_NEVER = ['child_process', 'worker_threads', 'better-sqlite3', 'pg', 'node-pty', 'electron', 'playwright-core', 'chromium-bidi'];

const RUNTIME_PACKAGES = [
  '@opentelemetry/api-logs',
  '@opentelemetry/exporter-logs-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-logs',
  'chromium-bidi',
  'devtools-protocol',
  'esbuild',
  'node-pty',
  'playwright-core',
  'tar',
  'tldts',
  'undici',
  'ws',
  'yauzl',
  'yazl',
  ...WIRE,
];
const DOMAIN_PACKAGES = ['@1password/sdk', '@aws-sdk/client-s3', '@aws-sdk/client-sts', 'jose', 'kysely', 'playwright-core', 'tar', 'undici', ...WIRE];
const STORE_PACKAGES = ['better-sqlite3', 'kysely', 'pg'];
const HTTP_PACKAGES = [...FASTIFY, 'ajv', 'ajv-formats', 'fast-json-stringify', 'undici', ...WIRE];
const MAIN = {
  may: [
    'src/engine/engine',
    'src/engine/config',
    'src/engine/domain/secrets/secret-key-provider',
    'src/engine/runtime/assets',
    'src/engine/store/engine-pid-file',
    'src/shared',
  ],
  packages: ['eventsource-parser', 'undici', ...WIRE],
  node: true,
  never: ['react', 'react-dom', 'zustand', '@xterm/xterm'],
};

export const LAYERS: Record<string, Layer> = {
  engine: {
    paths: [
      'src/engine/engine',
      'src/engine/compose',
      'src/engine/features',
      'src/engine/cli',
      'src/engine/cli-backup',
      'src/engine/serve',
      'src/engine/config-options',
      'src/engine/config-options.test',
      'src/engine/config.test',
      'src/engine/index',
    ],
    may: ['src/engine', 'src/shared'],
    packages: [...HTTP_PACKAGES, ...STORE_PACKAGES],
    node: true,
    never: UI_PACKAGES,
    why: 'the composition root wires every engine layer together; nothing imports it',
  },
  'engine/api': {
    paths: ['src/engine/api'],
    may: ['src/engine/http', 'src/engine/domain', 'src/engine/runtime', 'src/engine/events', 'src/engine/store', ...ENGINE_CONTRACTS, 'src/shared'],
    // The MCP server (api/mcp/): the official SDK, zod for its tool schemas, light-my-request to call the API in process, MiniSearch for search_docs.
    packages: [...FASTIFY, 'kysely', 'devtools-protocol', '@modelcontextprotocol/sdk', 'zod', 'light-my-request', 'minisearch', ...WIRE],
    node: true,
    never: UI_PACKAGES,
    why: 'one module per resource: validate → domain → shape the response',
  },
  'engine/http': {
    paths: ['src/engine/http'],
    may: ['src/engine/http', 'src/engine/domain', 'src/engine/events', 'src/engine/store', ...ENGINE_CONTRACTS, 'src/shared'],
    packages: HTTP_PACKAGES,
    node: true,
    never: UI_PACKAGES,
    why: 'Fastify assembly beside api/: auth, audit, the Error object, SSE, the upgrade router',
  },
  'engine/contracts': {
    paths: [...ENGINE_CONTRACTS, ...CALLER_CONTRACT, ...HTTP_CONTRACTS, ...HTTP_ERRORS],
    may: ['src/shared', 'package.json'],
    // services.ts names the type of every service compose.ts builds (domain, runtime, events).
    types: ['src/engine/domain', 'src/engine/runtime', 'src/engine/events', 'src/engine/store'],
    packages: ['fastify', '@fastify/type-provider-typebox', 'kysely'],
    node: true,
    never: UI_PACKAGES,
    why: 'the interfaces every feature is written against, importable from every engine layer but store/',
  },
  'engine/domain': {
    paths: ['src/engine/domain'],
    // domain ↛ http/ and ↛ api/: its errors are shared/errors DomainErrors, its caller is the
    // AuthContext of domain/org/auth-context, the upgrade audit note is injected (issue 13 item 2).
    may: ['src/engine/runtime', 'src/engine/events', 'src/engine/store', ...ENGINE_CONTRACTS, ...CALLER_CONTRACT, 'src/shared'],
    packages: DOMAIN_PACKAGES,
    node: true,
    never: [...UI_PACKAGES, ...FASTIFY],
    why: 'the rules of the product; knows nothing of HTTP',
  },
  'engine/runtime': {
    paths: ['src/engine/runtime'],
    // runtime ↛ domain/ and ↛ http/: SessionRuntime/SessionHandle live in runtime/session, the
    // registry is scoped by a structural SessionCaller, errors are DomainErrors (issue 13 item 2).
    may: ['src/engine/events', 'src/engine/store', ...ENGINE_CONTRACTS, 'src/shared'],
    packages: RUNTIME_PACKAGES,
    node: true,
    never: [...UI_PACKAGES, ...FASTIFY],
    why: 'everything touching a process or a browser, below the rules that drive it',
  },
  'engine/events': {
    paths: ['src/engine/events'],
    may: ['src/engine/store', ...ENGINE_CONTRACTS, ...HTTP_CONTRACTS, 'src/shared'],
    packages: [],
    node: true,
    never: [...UI_PACKAGES, ...FASTIFY],
    why: 'in-process signals and fan-out, usable from every layer above store/',
  },
  'engine/store': {
    paths: ['src/engine/store'],
    may: ['src/engine/config', 'src/shared'],
    packages: STORE_PACKAGES,
    node: true,
    never: [...UI_PACKAGES, ...FASTIFY],
    why: 'the bottom of the engine: schema and migrations',
  },
  shared: {
    paths: ['src/shared'],
    may: [],
    packages: [...WIRE, 'eventsource-parser'],
    node: false,
    never: ['electron'],
    why: 'wire schemas and pure helpers loaded by the engine, main and the browser renderer alike',
  },
  cli: {
    paths: ['src/cli'],
    // `serve` and `backup` run the engine's own command line; everything else is a client of
    // the HTTP API through the official client, never the engine's modules.
    may: ['src/engine/serve', 'src/engine/cli-backup', 'src/engine/config'],
    packages: ['@onkernel/sdk', '@modelcontextprotocol/sdk', 'commander', 'yaml', 'yazl'],
    node: true,
    never: UI_PACKAGES,
    why: 'the `browserdeck` command: an API client (official SDK, commander) plus the engine entry for serve/backup',
  },
  main: { paths: ['src/main'], ...MAIN, why: 'Electron glue (thin): only a few files may touch electron' },
  'main/electron': {
    // The only main-process files that import electron; everything else in src/main is plain Node.
    paths: ['src/main/index', 'src/main/electron-cipher', 'src/main/ipc-main'],
    ...MAIN,
    may: [...MAIN.may, 'src/main'],
    packages: [...MAIN.packages, 'electron'],
    why: 'the main-process files that need electron (app lifecycle, safeStorage, ipcMain)',
  },
  preload: {
    paths: ['src/preload'],
    may: ['src/shared'],
    packages: ['electron'],
    node: false,
    why: 'a sandboxed contextBridge: electron and the shared IPC contract only',
  },
  renderer: {
    paths: ['src/renderer'],
    may: ['src/shared'],
    packages: ['react', 'react-dom', 'zustand', '@xterm/xterm', '@xterm/addon-fit', 'eventsource-parser', ...WIRE],
    node: false,
    never: ['electron'],
    why: 'runs in a browser (web and desktop); talks to an engine through window.api or HTTP',
  },
};

// ── reading and resolving ───────────────────────────────────────────────────────────────────

const builtins = new Set(builtinModules);
const EXT = /\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$/;
const isTestFile = (p: string) => /\.test\.(ts|tsx|mts|js)$/.test(p);

/** Every module specifier in a TypeScript/JavaScript source text. */
export function readImports(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/**
 * Specifiers used only by `import type …`, `import { type A } …` or `export type … from`
 * (erased at build: no code loads). A specifier also imported for values (or dynamically)
 * anywhere in the file is not type-only.
 */
export function readTypeOnlyImports(text: string): string[] {
  const sf = ts.createSourceFile('x.tsx', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const typeDecls = new Map<string, number>();
  for (const st of sf.statements) {
    // `declare module 'x' { … }` (a type augmentation) is listed as an import of x, and loads nothing.
    if (ts.isModuleDeclaration(st) && ts.isStringLiteral(st.name)) typeDecls.set(st.name.text, (typeDecls.get(st.name.text) ?? 0) + 1);
    if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (isTypeDecl(st)) typeDecls.set(st.moduleSpecifier.text, (typeDecls.get(st.moduleSpecifier.text) ?? 0) + 1);
  }
  const all = readImports(text);
  return [...typeDecls].filter(([s, n]) => all.filter((x) => x === s).length === n).map(([s]) => s);
}

function isTypeDecl(st: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(st)) return st.isTypeOnly;
  const c = st.importClause;
  if (!c) return false;
  if (c.isTypeOnly) return true;
  const named = c.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings : undefined;
  return !c.name && !!named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

export function resolveTarget(fromFile: string, specifier: string): Target {
  const spec = specifier.split('?')[0];
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec));
    return { kind: 'file', path: joined.replace(EXT, '') };
  }
  if (spec.startsWith('node:') || builtins.has(spec) || builtins.has(spec.split('/')[0])) return { kind: 'builtin', name: spec.replace(/^node:/, '') };
  const parts = spec.split('/');
  return { kind: 'package', name: spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
}

const within = (p: string, prefix: string) => p === prefix || p.startsWith(prefix + '/');

/** The layer a repository path (with or without extension) belongs to: the longest matching path. */
export function layerOf(p: string, layers: Record<string, Layer> = LAYERS): string | undefined {
  const bare = p.replace(EXT, '');
  let best: { name: string; len: number } | undefined;
  for (const [name, layer] of Object.entries(layers)) {
    for (const lp of layer.paths) if (within(bare, lp) && (!best || lp.length > best.len)) best = { name, len: lp.length };
  }
  return best?.name;
}

const builtinName = (name: string) => name.split('/')[0];

// ── checking ────────────────────────────────────────────────────────────────────────────────

/** Direct rules: each import of each file against its layer's entry. */
function checkDirect(file: SourceFile, layers: Record<string, Layer>): Violation[] {
  const out: Violation[] = [];
  const name = layerOf(file.path, layers);
  const test = isTestFile(file.path);
  if (!name)
    return file.path.startsWith('src/')
      ? [{ rule: 'map: unclaimed', file: file.path, specifier: '', reason: 'no layer of the import map claims this file' }]
      : [];
  const layer = layers[name];
  const typeOnly = new Set(file.typeOnly ?? []);
  for (const specifier of file.imports) {
    const t = resolveTarget(file.path, specifier);
    const v = (what: string, reason: string) => out.push({ rule: `${name}: ${what}`, file: file.path, specifier, reason: `${reason} (${name}: ${layer.why})` });
    if (t.kind === 'builtin') {
      if (!layer.node) v('node', `no Node builtins here (${t.name})`);
    } else if (t.kind === 'package') {
      if (TEST_PACKAGES.includes(t.name)) {
        if (!test) v('tests', `${t.name} is for tests: only *.test.ts files may import it`);
      } else if (!layer.packages.includes(t.name)) v('packages', `package ${t.name} is not in this layer's list`);
    } else {
      if (isTestFile(t.path + '.ts') || /\.test$/.test(t.path)) {
        if (!test) v('tests', 'a test file is imported by app code (it would be bundled)');
        continue;
      }
      const targetLayer = layerOf(t.path, layers);
      if (targetLayer === name) continue;
      if (layer.may.some((p) => within(t.path, p))) continue;
      if (typeOnly.has(specifier) && layer.types?.some((p) => within(t.path, p))) continue;
      const typesOnly = layer.types?.some((p) => within(t.path, p));
      v(
        'imports',
        typesOnly
          ? `${t.path} may be imported for types only (import type)`
          : `may not import ${t.path}${targetLayer ? ` (layer ${targetLayer})` : ' (outside the import map)'}`,
      );
    }
  }
  return out;
}

/** Resolves a file target to a scanned source file (`x` → `x.ts`, `x.tsx`, `x/index.ts` …). */
function fileIndex(files: SourceFile[]): (target: string) => SourceFile | undefined {
  const byBare = new Map<string, SourceFile>();
  for (const f of files) {
    byBare.set(f.path.replace(EXT, ''), f);
    byBare.set(f.path, f);
  }
  return (target) => byBare.get(target) ?? byBare.get(target + '/index');
}

/**
 * Transitive rules: the packages and builtins each file loads through any chain of value
 * imports, against its layer's `never` list (and `node: false`). Reported once per
 * (file, forbidden module) with the chain that reaches it; direct imports are left to
 * checkDirect.
 */
function checkTransitive(files: SourceFile[], layers: Record<string, Layer>): Violation[] {
  const find = fileIndex(files);
  const out: Violation[] = [];
  for (const file of files) {
    const name = layerOf(file.path, layers);
    if (!name) continue;
    const layer = layers[name];
    const never = new Set([...(layer.never ?? []), ...(isTestFile(file.path) ? UNIT_TEST_NEVER : [])]);
    const forbidden = (t: Target) => (t.kind === 'builtin' ? !layer.node || never.has(builtinName(t.name)) : t.kind === 'package' && never.has(t.name));
    if (!never.size && layer.node) continue;
    const seen = new Set<string>([file.path]);
    const reported = new Set<string>();
    // Breadth-first, so the chain reported is a shortest one.
    const queue: Array<{ f: SourceFile; chain: string[]; via?: string }> = [{ f: file, chain: [file.path] }];
    while (queue.length) {
      const { f, chain, via } = queue.shift()!;
      const typeOnly = new Set(f.typeOnly ?? []);
      for (const spec of f.imports) {
        if (typeOnly.has(spec)) continue;
        const t = resolveTarget(f.path, spec);
        if (t.kind !== 'file') {
          const label = t.kind === 'builtin' ? `node:${t.name}` : t.name;
          if (chain.length > 1 && forbidden(t) && !reported.has(label)) {
            reported.add(label);
            out.push({
              rule: `${name}: reaches`,
              file: file.path,
              specifier: via!,
              reason: `loads ${label} through ${[...chain, label].join(' → ')} (${name}: ${layer.why})`,
            });
          }
          continue;
        }
        const next = find(t.path);
        if (next && !seen.has(next.path)) {
          seen.add(next.path);
          queue.push({ f: next, chain: [...chain, next.path], via: via ?? spec });
        }
      }
    }
  }
  return out;
}

export function checkImports(files: SourceFile[], layers: Record<string, Layer> = LAYERS): Violation[] {
  return [...files.flatMap((f) => checkDirect(f, layers)), ...checkTransitive(files, layers)];
}
