/**
 * Every file the engine runs by path, in one place, and the Node runtime it runs them with.
 * Child processes (the Playwright executor, the sandbox's CDP exec/forwarder, the app runner
 * and its resolve hooks) start from script files, not from the engine's own modules; once the
 * desktop app bundles main into `out/main/index.js` (and packs it into an asar), paths taken
 * relative to a source module no longer exist, and a child `node` or bwrap cannot read a file
 * inside an asar. So each script is named here relative to an assets root that keeps the
 * `src/engine/runtime` layout (the scripts import each other relatively). The default root is
 * this source directory (`npm run serve` via tsx); a bundle copies `ENGINE_ASSETS` to
 * `out/main/engine-assets` (electron.vite.config.ts) and the host passes that directory, or its
 * `app.asar.unpacked` twin, as `assetsRoot`. This module is imported by the build config too:
 * keep it free of engine imports.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Script files children are started from, relative to the assets root. */
export const ENGINE_ASSETS = [
  'code-runner/code-runner-child.mjs',
  'code-runner/repl-child.mjs',
  'code-runner/webmcp-client.mjs',
  'code-runner/browser-helpers.mjs',
  'code-runner/load-playwright.mjs',
  'code-runner/bundle-code-cache.mjs',
  'code-runner/make-code-cache.mjs',
  'code-runner/webmcp-tool-child.mjs',
  'sandbox/cdp-exec.mjs',
  'sandbox/cdp-forwarder.mjs',
  'sandbox/frame-channel.mjs',
  'sandbox/app-jail-helper.mjs',
  'bidi/bidi-mapper-child.mjs',
  'app-runtime/app-runner-child.mjs',
  'app-runtime/fallback-resolve-hooks.mjs',
  'session-fs/fs-watcher-child.mjs',
  'host-commands/host-command-child.mjs',
] as const;
export type EngineAssetName = (typeof ENGINE_ASSETS)[number];

/** The Node runtime children run on: in Electron, its own binary with ELECTRON_RUN_AS_NODE=1. */
export interface ChildNode {
  path: string;
  env: Record<string, string>;
}

export interface EngineRuntimeAssets {
  assetsRoot?: string;
  childNode?: { path: string; env?: Record<string, string> };
}

const SOURCE_ROOT = path.dirname(fileURLToPath(import.meta.url));

function defaultRoot(): string {
  // Bundled without an explicit root, this module's URL is the bundle's: look beside it.
  if (fs.existsSync(path.join(SOURCE_ROOT, ENGINE_ASSETS[0]))) return SOURCE_ROOT;
  return unpackedPath(path.join(SOURCE_ROOT, 'engine-assets'));
}

function defaultChildNode(): ChildNode {
  return { path: process.execPath, env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

let root: string | undefined;
let node: ChildNode | undefined;

/**
 * Sets the assets root and child runtime for this process (createEngine calls it from
 * EngineOptions); returns a function restoring the previous values. One engine per process
 * is the product's shape; tests that start several use the defaults.
 */
export function configureEngineAssets(opts: EngineRuntimeAssets): () => void {
  const prev = { root, node };
  if (opts.assetsRoot) root = path.resolve(opts.assetsRoot);
  if (opts.childNode) node = { path: opts.childNode.path, env: { ...(opts.childNode.env ?? {}) } };
  return () => {
    root = prev.root;
    node = prev.node;
  };
}

export function engineAssetsRoot(): string {
  return (root ??= defaultRoot());
}

/** Absolute host path of one asset. */
export function engineAsset(name: EngineAssetName): string {
  return path.join(engineAssetsRoot(), name);
}

/** Directory of an asset group (e.g. 'code-runner'), for read-only mounts and permission grants. */
export function engineAssetDir(dir: 'code-runner' | 'sandbox' | 'app-runtime'): string {
  return path.join(engineAssetsRoot(), dir);
}

/** Assets absent from the current root (empty when the build shipped them all). */
export function missingEngineAssets(): string[] {
  return ENGINE_ASSETS.filter((name) => !fs.existsSync(engineAsset(name))).map((name) => engineAsset(name));
}

export function childNode(): ChildNode {
  return (node ??= defaultChildNode());
}

/**
 * A path inside an Electron asar as it exists on disk when unpacked (`asarUnpack`): child
 * processes and bwrap see the real filesystem only. Unchanged outside an asar or when no
 * unpacked twin exists.
 */
export function unpackedPath(p: string): string {
  const m = /([\\/])app\.asar(?=[\\/]|$)/.exec(p);
  if (!m) return p;
  const twin = p.slice(0, m.index) + `${m[1]}app.asar.unpacked` + p.slice(m.index + m[0].length);
  return fs.existsSync(twin) ? twin : p;
}
