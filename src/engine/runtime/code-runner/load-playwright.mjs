/**
 * playwright-core for a runner, loaded with `require` rather than `import()`. The package is
 * CommonJS under a thin ESM wrapper (index.mjs); importing it from ESM makes Node lex its
 * CommonJS sources for named exports, which was about 40 % of a runner's start: 0.89 against
 * 0.52 CPU-s for the import alone on a 2-core VM (2026-12-03, `process.cpuUsage()` around each,
 * four runs), paid by every executor, REPL and WebMCP tool runner the engine starts.
 *
 * `entry` is the package's CommonJS entry (index.js). The result has the members of the ESM
 * wrapper's namespace, `default` included, so user code that reads `playwright` (the REPL's and
 * the tools' global) sees what `import('playwright-core')` gives.
 *
 * `codeCache`: the directory of the engine's V8 code cache for the package's bundles
 * (bundle-code-cache.mjs), when it has one; loading works the same without it, only slower.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { withBundleCache } from './bundle-code-cache.mjs';

export function loadPlaywright(entry, codeCache) {
  const load = () => createRequire(import.meta.url)(entry);
  const pw = codeCache ? withBundleCache(path.dirname(entry), codeCache, load).value : load();
  return Object.freeze({
    chromium: pw.chromium,
    firefox: pw.firefox,
    webkit: pw.webkit,
    selectors: pw.selectors,
    devices: pw.devices,
    errors: pw.errors,
    request: pw.request,
    _electron: pw._electron,
    _android: pw._android,
    default: pw,
  });
}
