/**
 * Builds the desktop bundles (`electron-vite build`: main, preload, renderer → out/) when
 * out/renderer is missing or older than any source it is built from. The headless server
 * serves out/renderer as the operator UI, so `npm run serve` needs it current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { run, say } from './run.mjs';

const INPUTS = ['src/renderer', 'src/shared', 'src/main', 'src/preload', 'electron.vite.config.ts', 'package-lock.json'];

function newestMtime(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, e)));
  return newest;
}

export function rendererIsStale(root) {
  const marker = path.join(root, 'out', 'renderer', 'index.html');
  if (!fs.existsSync(marker)) return true;
  const built = fs.statSync(marker).mtimeMs;
  return INPUTS.some((p) => newestMtime(path.join(root, p)) > built);
}

/** Runs electron-vite build (at niceness `nice` when given); resolves with its exit code (0 when nothing needed doing). */
export async function buildDesktopBundles(root, { force = false, nice } = {}) {
  if (!force && !rendererIsStale(root)) return 0;
  say('building the operator UI and desktop bundles (electron-vite build)');
  return run(path.join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], { cwd: root, nice });
}
