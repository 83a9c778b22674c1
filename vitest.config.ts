import { defineConfig } from 'vitest/config';

// Two speeds (issue 13 item 7), one config:
// - `unit`: `*.test.ts` beside pure modules in src/ (and scripts/) — no engine, no Chromium, no database, no
//   global setup; `npm run test:unit` runs only these, in seconds.
// - `integration`: test/ — real engines, real Chromium, SQLite/PostgreSQL, files in parallel
//   forks, each test file owning its own engine and data directory.
// `vitest run` runs both (each file once); `--project unit|integration` picks one.
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single fork on CI's 2 cores, which
    // ran the files one after another (~19 min for the SQLite pass). Most of a file's time is
    // spent waiting (browser start, inactivity timeouts, SSE, ffmpeg), not computing, so two
    // files at a time roughly halve the wall time without overcommitting two cores with
    // Chromium. `--maxWorkers=N` on the command line still overrides this.
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
          // The files of a worker share one module cache: each file used to import the engine and
          // its dependencies afresh, ~4 s per file (803 s of import beside 2,403 s of tests in the
          // last full run of 190 files). Every file still owns its engines and data directories; the few tests that
          // change process.env restore it, and nothing in the engine keeps per-run module state
          // that a later file could see (per-session registries are keyed by unique ids).
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          globalSetup: ['test/helpers/global-setup.ts'],
          // Mocks `electron` (only main-process modules import it; everything else is unaffected).
          setupFiles: ['test/main/electron-mock.ts'],
        },
      },
    ],
  },
});
