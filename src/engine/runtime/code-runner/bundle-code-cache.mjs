/**
 * A V8 code cache for playwright-core's two bundles (lib/coreBundle.js, lib/utilsBundle.js: 7 MB
 * of JavaScript every executor, REPL and WebMCP tool runner loads). Compiling and running them was
 * most of a runner's start: `require('playwright-core')` took 0.55 CPU-s, 0.35 with the cache
 * (2026-12-04, 2-core VM, runner flags, five runs each). The engine makes the cache once, in a
 * child of its own (make-code-cache.mjs, started by code-cache.ts), and binds it read-only into
 * the jails; a runner hands it to V8 here.
 *
 * `require` compiles a CommonJS file through Module.prototype._compile; for the two bundles this
 * compiles the same wrapper through `vm.Script` with the cached data instead, and runs it the way
 * Node would (exports, require, module, __filename, __dirname). V8 checks the data itself: made by
 * another V8, under other flags or for another source length, it is rejected and the bundle
 * compiles from source as usual. The cache is code: only the engine writes it (code-cache.ts).
 *
 * Plain JavaScript: it runs under bare `node`, inside the sandbox too.
 */
import Module, { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

export const BUNDLES = ['coreBundle.js', 'utilsBundle.js'];

/** The cache file of `bundle` in `dir`. */
export const cacheFileOf = (dir, bundle) => path.join(dir, `${bundle}.v8`);

/**
 * Runs `load()` with playwright-core's bundles (under `pwDir`) compiled through `vm.Script`, with
 * the cache files in `cacheDir` when there are any. Returns `load()`'s value, the scripts (for the
 * maker's `createCachedData()`), and what became of the cache: 'used' (V8 took every file),
 * 'rejected' (it refused one), 'none' (no cache given or found).
 */
export function withBundleCache(pwDir, cacheDir, load) {
  const bundles = new Map(BUNDLES.map((b) => [path.join(pwDir, 'lib', b), b]));
  const scripts = new Map();
  let outcome = 'none';
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    const bundle = bundles.get(filename);
    if (!bundle) return compile.call(this, content, filename);
    let cachedData;
    try {
      if (cacheDir) cachedData = fs.readFileSync(cacheFileOf(cacheDir, bundle));
    } catch {
      // no cache for this bundle (yet): compile from source
    }
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    scripts.set(bundle, script);
    if (cachedData) outcome = script.cachedDataRejected || outcome === 'rejected' ? 'rejected' : 'used';
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, path.dirname(filename));
  };
  try {
    return { value: load(), scripts, outcome };
  } finally {
    Module.prototype._compile = compile;
  }
}
