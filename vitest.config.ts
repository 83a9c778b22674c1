import { configDefaults, defineConfig } from 'vitest/config';
import { isOwnProcessTest, pgTestFiles, testFiles } from './scripts/bootstrap/test-selection.mjs';

// Which files go to which project: tags in their header comments (scripts/bootstrap/test-selection.mjs).
// `@own-process`: files that need a process of their own (they test what a once-per-process probe or a
// module's load sees); every other integration file shares its worker's module cache with the files before it.
const OWN_PROCESS = testFiles('.', 'test').filter((f) => isOwnProcessTest('.', f));
// `@database` or `*.pg.test.ts`: files that run a second time on PostgreSQL, in project `integration-pg`, when
// BROWSERDECK_PG_PASS_URL names a server (`npm test` starts a private cluster and sets it). Without it, set
// BROWSERDECK_TEST_DATABASE_URL to run any selection of files on PostgreSQL instead of SQLite.
const PG_PASS_URL = process.env.BROWSERDECK_PG_PASS_URL;
const ON_POSTGRES = PG_PASS_URL ? pgTestFiles('.') : [];
const PG_OWN_PROCESS = ON_POSTGRES.filter((f) => OWN_PROCESS.includes(f));
if (PG_OWN_PROCESS.length)
  throw new Error(
    `${PG_OWN_PROCESS.join(', ')}: tagged both @database and @own-process; integration-pg shares its workers — give it a project of its own first`,
  );
const INTEGRATION = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Mocks `electron` (only main-process modules import it; everything else is unaffected).
  setupFiles: ['test/main/electron-mock.ts'],
};

// Two speeds (issue 13 item 7), one config:
// - `unit`: `*.test.ts` beside pure modules in src/ (and scripts/) — no engine, no Chromium, no database, no
//   global setup; `npm run test:unit` runs only these, in seconds.
// - `integration`: test/ — real engines, real Chromium, SQLite/PostgreSQL, files in parallel
//   forks, each test file owning its own engine and data directory.
// - `integration-own-process`: the few files of test/ tagged `@own-process`, each in a fresh fork.
// - `integration-pg`: the files tagged `@database`, again, on PostgreSQL (only with BROWSERDECK_PG_PASS_URL).
// `vitest run` runs all; `--project unit|integration` picks one.
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
          globalSetup: ['test/helpers/global-setup.ts'],
          ...INTEGRATION,
        },
      },
      {
        extends: true,
        test: { name: 'integration-own-process', include: OWN_PROCESS, ...INTEGRATION },
      },
      // Its workers are its own (vitest gives a worker to one project), so the module cache they
      // share holds only PostgreSQL engines; the global setup checks once that the server answers.
      ...(PG_PASS_URL
        ? [
            {
              extends: true as const,
              test: {
                name: 'integration-pg',
                include: ON_POSTGRES,
                isolate: false,
                globalSetup: ['test/helpers/global-setup.ts'],
                env: { BROWSERDECK_TEST_DATABASE_URL: PG_PASS_URL },
                ...INTEGRATION,
              },
            },
          ]
        : []),
    ],
  },
});
