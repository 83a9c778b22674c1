import fs from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Integration files that need a process of their own: their header comment has a line
 * `@own-process <why>` (they test what a once-per-process probe or a module's load sees). Every
 * other integration file shares its worker's module cache with the files before it.
 */
function ownProcessFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return ownProcessFiles(p);
    if (!/\.test\.tsx?$/.test(e.name)) return [];
    const head = fs.readFileSync(p, 'utf8').slice(0, 4096);
    return /^\s*(?:\*|\/\/)\s*@own-process\b/m.test(head) ? [p.split(path.sep).join('/')] : [];
  });
}
const OWN_PROCESS = ownProcessFiles('test');

// Two speeds (issue 13 item 7), one config:
// - `unit`: `*.test.ts` beside pure modules in src/ (and scripts/) — no engine, no Chromium, no database, no
//   global setup; `npm run test:unit` runs only these, in seconds.
// - `integration`: test/ — real engines, real Chromium, SQLite/PostgreSQL, files in parallel
//   forks, each test file owning its own engine and data directory.
// - `integration-own-process`: the few files of test/ tagged `@own-process`, each in a fresh fork.
// `vitest run` runs all (each file once); `--project unit|integration` picks one.
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single fork on CI's 2 cores, which
    // ran the files one after another (~19 min for the SQLite pass). Most of a file's time is
    // spent waiting (browser start, inactivity timeouts, SSE, ffmpeg), not computing, so two
    // files at a time roughly halve the wall time without overcommitting two cores with
    // Chromium. `--maxWorkers=N` on the command line still overrides this. Three were slower:
    // the SQLite pass with warm images took 580 s at three and 545 s at two (2026-12-02, 2 cores), and
    // again on 2026-12-04 (fresh clones, `bash .ci/run`): 858 s at three against 777 s at two, the
    // PostgreSQL pass 118 s against 92, with the CPUs ~1 % idle at three — and a unit test starved
    // and a standby timing test failed.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.mjs'],
          // Pure modules: worker threads sharing one module cache start faster than a fresh
          // process per file (most of a unit run is transform and import, not the tests).
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          // The files of a worker share one module cache: each file used to import the engine and
          // its dependencies afresh, ~4 s per file (803 s of import beside 2,403 s of tests in the
          // run of 2026-12-01; 46 s of import with this). Every file still owns its engines and
          // data directories, and the tests that change process.env restore it. What a process
          // learns once (its cgroups, its jail probes) is shared by the files of a worker: a file
          // that tests such a probe is tagged `@own-process` and runs in the project below.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          globalSetup: ['test/helpers/global-setup.ts'],
          // Mocks `electron` (only main-process modules import it; everything else is unaffected).
          setupFiles: ['test/main/electron-mock.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-own-process',
          include: OWN_PROCESS,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          setupFiles: ['test/main/electron-mock.ts'],
        },
      },
    ],
  },
});
