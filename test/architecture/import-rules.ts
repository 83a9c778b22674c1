/**
 * The import boundaries of ARCHITECTURE.md as data, and a checker that applies them to a list
 * of source files. It plays the role of Playwright's DEPS.list: every import (static, dynamic,
 * re-export, `import type`, require) is resolved to a builtin, an npm package or a repository
 * path and tested against the rules of the importing file's folder. The checker is pure (it is
 * fed `{path, imports}`), so its own tests can prove it catches violations on synthetic input.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export interface SourceFile {
  /** Repository-relative, `/`-separated, e.g. `src/engine/api/projects.ts`. */
  path: string;
  /** Module specifiers exactly as written. */
  imports: string[];
}

export type Target = { kind: 'builtin'; name: string } | { kind: 'package'; name: string } | { kind: 'file'; path: string };

export interface Rule {
  name: string;
  /** Files this rule governs: path prefix. */
  from: string;
  /** Why the import breaks the rule, or null when it is allowed. */
  check(target: Target): string | null;
}

export interface Violation {
  rule: string;
  file: string;
  specifier: string;
  reason: string;
}

const builtins = new Set(builtinModules);

/** Every module specifier in a TypeScript/JavaScript source text. */
export function readImports(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

export function resolveTarget(fromFile: string, specifier: string): Target {
  const spec = specifier.split('?')[0];
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec));
    return { kind: 'file', path: joined.replace(/\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$/, '') };
  }
  if (spec.startsWith('node:') || builtins.has(spec) || builtins.has(spec.split('/')[0])) return { kind: 'builtin', name: spec.replace(/^node:/, '') };
  const parts = spec.split('/');
  return { kind: 'package', name: spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
}

const under = (t: Target, ...dirs: string[]) => t.kind === 'file' && dirs.some((d) => t.path === d || t.path.startsWith(d + '/'));
const isPackage = (t: Target, ...names: string[]) => t.kind === 'package' && names.includes(t.name);

/**
 * The engine's plug-in contracts: what every feature is written against, wherever it lives —
 * the Error object, the request's AuthContext, the Feature/EngineContext interfaces, the
 * WebSocket upgrade router and the identity note its handlers leave for the audit log
 * (upgrade-identity), the engine config, and the SessionHandle contract that operation
 * features must use (instead of the session manager). Any engine layer except store/ may import
 * these; everything else in http/ is server assembly and sits on top with api/.
 */
const CONTRACTS = ['http/api-error', 'http/auth', 'http/upgrade-router', 'http/upgrade-identity', 'context', 'feature', 'config', 'domain/sessions/session-handle'].map((f) => `src/engine/${f}`);
const contract = (t: Target) => t.kind === 'file' && CONTRACTS.includes(t.path);
const httpBeyondContracts = (t: Target) => under(t, 'src/engine/http') && !contract(t);
const domainBeyondContracts = (t: Target) => under(t, 'src/engine/domain') && !contract(t);
/** The engine's composition root: it wires every layer together, so no layer below may import it. */
const COMPOSITION_ROOT = ['engine', 'features', 'cli', 'index'].map((f) => `src/engine/${f}`);
const compositionRoot = (t: Target) => t.kind === 'file' && COMPOSITION_ROOT.includes(t.path);
const UI_PACKAGES = ['electron', 'react', 'react-dom', 'zustand', '@xterm/xterm'];

export const RULES: Rule[] = [
  {
    name: 'engine-is-plain-node',
    from: 'src/engine/',
    check: (t) =>
      isPackage(t, ...UI_PACKAGES) ? `the engine must not depend on ${t.kind === 'package' ? t.name : ''}` : under(t, 'src/main', 'src/renderer', 'src/preload') ? 'the engine must not import desktop code (main/renderer/preload)' : null,
  },
  {
    name: 'renderer-imports-own-and-shared',
    from: 'src/renderer/',
    check: (t) =>
      t.kind === 'builtin' ? 'the renderer runs in a browser: no Node builtins' : isPackage(t, 'electron') ? 'the renderer must not import electron (use window.api)' : t.kind === 'file' && !under(t, 'src/renderer', 'src/shared') ? 'the renderer imports only src/renderer and src/shared' : null,
  },
  {
    name: 'shared-is-browser-safe',
    from: 'src/shared/',
    check: (t) => (t.kind === 'builtin' ? 'src/shared must stay browser-safe: no Node builtins' : isPackage(t, 'electron') ? 'src/shared must not import electron' : t.kind === 'file' && !under(t, 'src/shared') ? 'src/shared imports only src/shared' : null),
  },
  { name: 'main-not-renderer', from: 'src/main/', check: (t) => (under(t, 'src/renderer') ? 'main must not import renderer code' : null) },
  { name: 'preload-is-a-bridge', from: 'src/preload/', check: (t) => (under(t, 'src/engine', 'src/main', 'src/renderer') ? 'preload imports only electron, src/shared and its own files' : null) },
  {
    name: 'domain-below-api',
    from: 'src/engine/domain/',
    check: (t) => (under(t, 'src/engine/api') ? 'domain must not import api/' : httpBeyondContracts(t) ? 'domain may use only the contracts of http/' : compositionRoot(t) ? 'domain must not import the engine composition root' : null),
  },
  {
    name: 'runtime-below-domain',
    from: 'src/engine/runtime/',
    check: (t) =>
      under(t, 'src/engine/api') ? 'runtime must not import api/' : domainBeyondContracts(t) ? 'runtime must not import domain/ (only the SessionHandle contract)' : httpBeyondContracts(t) ? 'runtime may use only the contracts of http/' : compositionRoot(t) ? 'runtime must not import the engine composition root' : null,
  },
  {
    name: 'events-below-domain',
    from: 'src/engine/events/',
    check: (t) =>
      under(t, 'src/engine/api', 'src/engine/runtime') || domainBeyondContracts(t) ? 'events must not import api/, domain/ or runtime/' : httpBeyondContracts(t) ? 'events may use only the contracts of http/' : compositionRoot(t) ? 'events must not import the engine composition root' : null,
  },
  {
    name: 'store-is-the-bottom',
    from: 'src/engine/store/',
    check: (t) => (under(t, 'src/engine/api', 'src/engine/http', 'src/engine/domain', 'src/engine/runtime', 'src/engine/events') || compositionRoot(t) || (contract(t) && !under(t, 'src/engine/config')) ? 'store must not import any layer above it' : null),
  },
];

export function checkImports(files: SourceFile[], rules: Rule[] = RULES): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    for (const specifier of file.imports) {
      const target = resolveTarget(file.path, specifier);
      for (const rule of rules) {
        if (!file.path.startsWith(rule.from)) continue;
        const reason = rule.check(target);
        if (reason) out.push({ rule: rule.name, file: file.path, specifier, reason });
      }
    }
  }
  return out;
}
