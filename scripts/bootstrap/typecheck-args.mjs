/**
 * The typecheck's `tsgo -b` arguments (TypeScript 7's native compiler; `-b` as `tsc -b`). `-b` rebuilds a config whose sources or tsconfig
 * changed since its state in out/tsc, but not one whose node_modules changed (new @types, a
 * new TypeScript is caught by the state's version): `--force` checks everything again then.
 * Otherwise it is left out: on a fresh clone (CI) there is no state and the build is complete
 * anyway, and a second local `npm test` re-checks only what changed (with nothing changed, 8 s of
 * CPU against 15 s for everything; `tsc -b` took ~130 s for everything).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The whole tree's config, then one per process (see the typecheck in test-run.mjs). */
export const TYPECHECK_CONFIGS = ['tsconfig.json', 'tsconfig.engine.json', 'tsconfig.main.json', 'tsconfig.preload.json', 'tsconfig.renderer.json'];

/** Where each config keeps its state (the tsBuildInfoFile of each, tested against the configs). */
export const TSC_STATE = ['all', 'engine', 'main', 'preload', 'renderer'].map((n) => `out/tsc/${n}.tsbuildinfo`);

const mtime = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

/** `--force` when node_modules (npm's record of it, node_modules/.package-lock.json) is newer than the oldest state. */
export function typecheckArgs(root) {
  const states = TSC_STATE.map((f) => mtime(path.join(root, f)));
  const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
  const oldest = states.some((s) => s === undefined) ? undefined : Math.min(...states);
  const force = oldest !== undefined && (installed === undefined || installed > oldest);
  return ['-b', ...(force ? ['--force'] : []), ...TYPECHECK_CONFIGS];
}
