/**
 * The CLI as one esbuild bundle, built once per test file: a `node bin/browserdeck.mjs` process
 * spends ~1 s of CPU in tsx transpiling the CLI's TypeScript before it does anything, the bundle
 * ~0.35 s (measured with `/usr/bin/time node …  browsers bogus`). The tests of what a command does
 * run it; a few run the real `bin/browserdeck.mjs` (run-cli.ts `bin`, and the MCP bridge test),
 * so the entry users start stays tested.
 *
 * The bundle lives in `out/cli-<pid>-<n>/`, two levels under the repository like `src/cli/`:
 * `src/cli/mcp-targets.ts` finds `bin/browserdeck.mjs` as `../../bin` from its own URL, and in
 * the bundle that URL is the bundle's. npm packages stay external (resolved from the
 * repository's node_modules, as under tsx); code after a dynamic import (`serve`'s engine) is a
 * chunk of its own that only that command loads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
let built = 0;

export interface CliBundle {
  /** The bundle's entry: run it as `node <entry> …args`. */
  entry: string;
  remove(): void;
}

export async function buildCliBundle(): Promise<CliBundle> {
  const outdir = path.join(ROOT, 'out', `cli-${process.pid}-${++built}`);
  await build({
    entryPoints: { main: path.join(ROOT, 'src/cli/main.ts') },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return { entry: path.join(outdir, 'main.mjs'), remove: () => fs.rmSync(outdir, { recursive: true, force: true }) };
}
