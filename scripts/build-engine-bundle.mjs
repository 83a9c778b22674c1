#!/usr/bin/env node
/**
 * The engine's entry (`src/engine/cli.ts`, what `npm run serve` runs) as one esbuild bundle in
 * `out/engine-<hash>/cli.mjs`: `node out/engine-<hash>/cli.mjs [serve flags…]` starts the same
 * engine without tsx transpiling ~700 TypeScript modules first (measured in
 * test/helpers/engine-bundle.ts). The tests that start an engine in a process of its own use it;
 * a container image could ship it instead of the sources.
 *
 * npm packages stay external (resolved from the repository's node_modules, as under tsx); the
 * engine's child-process scripts (src/engine/runtime/assets.ts) are copied to `engine-assets/`
 * beside the bundle, where the engine looks for them when bundled. The bundle sits two levels
 * under the repository like `src/engine/`: serve.ts finds `out/renderer` as `../..` from its URL.
 *
 * Built once, reused while nothing it was built from changed: `out/engine-bundle.json` names the
 * current bundle and the hash of its inputs (every source file esbuild read, the assets, and
 * this script).
 * Safe when several processes ask at once (vitest's workers): each builds into a fresh dir that
 * is renamed into place, and the pointer is replaced atomically; the loser's build is dropped.
 *
 *   node scripts/build-engine-bundle.mjs      prints the entry's path (building it when stale)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ASSETS_SRC = 'src/engine/runtime';
const POINTER = 'out/engine-bundle.json';

/** This script (its options shape the bundle) and the child scripts: inputs esbuild does not list. */
function extraInputs(root) {
  const self = path
    .relative(root, fileURLToPath(import.meta.url))
    .split(path.sep)
    .join('/');
  return [self, ...assetFiles(root).map((a) => `${ASSETS_SRC}/${a}`)];
}

/** Every child-process script (`*.mjs`) under src/engine/runtime, relative to it. */
function assetFiles(root) {
  const dir = path.join(root, ASSETS_SRC);
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.mjs') && !f.endsWith('.test.mjs'))
    .sort();
}

/** Hash of the inputs' contents (paths relative to the root); null when one of them is gone. */
function hashInputs(root, inputs) {
  const h = crypto.createHash('sha256');
  for (const rel of inputs) {
    let data;
    try {
      data = fs.readFileSync(path.join(root, rel));
    } catch {
      return null;
    }
    h.update(rel).update('\0').update(data).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

function readPointer(root) {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, POINTER), 'utf8'));
  } catch {
    return null;
  }
}

/** The current bundle's entry when it exists and its inputs are unchanged, else null. */
function currentEntry(root) {
  const p = readPointer(root);
  if (!p || !Array.isArray(p.inputs) || typeof p.key !== 'string') return null;
  const entry = path.join(root, 'out', `engine-${p.key}`, 'cli.mjs');
  if (!fs.existsSync(entry)) return null;
  const files = p.inputs.concat(extraInputs(root));
  // A new asset, or a changed input: the key no longer matches.
  return hashInputs(root, [...new Set(files)].sort()) === p.key ? entry : null;
}

/** An hour: a bundle a running engine may still be using (the sources changed under a test run) stays. */
const KEEP_MS = 60 * 60_000;

/** Removes the bundles of older sources, except `keep` and the recent ones. */
function pruneOldBundles(out, keep) {
  for (const e of fs.readdirSync(out)) {
    const dir = path.join(out, e);
    if (!/^engine-[0-9a-f]{16}$/.test(e) || dir === keep) continue;
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > KEEP_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}

/** Builds the bundle when stale; resolves with the absolute path of its `cli.mjs`. */
export async function buildEngineBundle(root = ROOT) {
  const fresh = currentEntry(root);
  if (fresh) return fresh;
  // Imported here: a fresh bundle needs no esbuild at all.
  const { build } = await import('esbuild');
  const out = path.join(root, 'out');
  fs.mkdirSync(out, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(out, '.engine-build-'));
  // mkdtemp makes it 0700; jails run as other users and read the engine's child scripts.
  fs.chmodSync(tmp, 0o755);
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: { cli: path.join(root, 'src/engine/cli.ts') },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      // serve.ts imports the engine dynamically (backup/restore start without it): its own chunk.
      splitting: true,
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      logLevel: 'error',
    });
    const assets = assetFiles(root);
    for (const a of assets) {
      const to = path.join(tmp, 'engine-assets', a);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(path.join(root, ASSETS_SRC, a), to);
    }
    const sources = Object.keys(result.metafile.inputs).map((f) => path.relative(root, path.resolve(root, f)).split(path.sep).join('/'));
    const inputs = [...new Set(sources.concat(extraInputs(root)))].sort();
    const key = hashInputs(root, inputs);
    if (!key) throw new Error('an input of the engine bundle vanished while it was built');
    const dir = path.join(out, `engine-${key}`);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another process built the same inputs first: theirs is identical.
      if (!fs.existsSync(path.join(dir, 'cli.mjs'))) throw err;
    }
    const pointerTmp = path.join(out, `.engine-bundle-${process.pid}-${crypto.randomUUID()}.json`);
    fs.writeFileSync(pointerTmp, JSON.stringify({ key, inputs: sources.sort() }) + '\n');
    fs.renameSync(pointerTmp, path.join(root, POINTER));
    pruneOldBundles(out, dir);
    return path.join(dir, 'cli.mjs');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${await buildEngineBundle()}\n`);
}
