/**
 * Makes the V8 code cache of playwright-core's bundles (bundle-code-cache.mjs): loads the package
 * the way a runner does, then writes each bundle's cached data — taken after the load, so it holds
 * the functions the load ran too — into `outDir` (a file is written beside and renamed, so a reader
 * never sees half of one). Started by the engine (code-cache.ts) with the runners' exact Node
 * flags: V8 rejects data made under other flags.
 *
 * Usage: node <runner flags> make-code-cache.mjs <playwright-core entry> <outDir>
 */
import fs from 'node:fs';
import path from 'node:path';
import { cacheFileOf, withBundleCache } from './bundle-code-cache.mjs';
import { loadPlaywright } from './load-playwright.mjs';

const [entry, outDir] = process.argv.slice(2);
const { scripts } = withBundleCache(path.dirname(entry), null, () => loadPlaywright(entry));
fs.mkdirSync(outDir, { recursive: true });
for (const [bundle, script] of scripts) {
  const file = cacheFileOf(outDir, bundle);
  fs.writeFileSync(`${file}.part`, script.createCachedData());
  fs.renameSync(`${file}.part`, file);
}
