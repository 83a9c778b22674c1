/**
 * The engine CLI (`src/engine/cli.ts`) as the tests that start an engine in a process of its own
 * run it: `node <engineEntry()> --port 0 …`, the esbuild bundle of scripts/build-engine-bundle.mjs
 * instead of `node --import tsx src/engine/cli.ts`. Under tsx each start spent ~6 s of CPU
 * transpiling the engine's TypeScript on a loaded 2-core machine; the bundle ~3 s (measured with
 * `/usr/bin/time` around a start to "listening", `--standby 0`). Built once per worker and reused
 * across files and runs until a source changes. `npm run serve` and `browserdeck serve` still
 * run the sources through tsx (test/engine/serve-cli.test.ts covers that entry).
 */
import { buildEngineBundle } from '../../scripts/build-engine-bundle.mjs';

let entry: Promise<string> | undefined;

/** The absolute path of the bundled engine CLI: run it as `node <path> …serve flags`. */
export function engineEntry(): Promise<string> {
  return (entry ??= buildEngineBundle());
}
