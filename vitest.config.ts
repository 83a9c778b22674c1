import { defineConfig } from 'vitest/config';

// Integration tests start real engines and real Chromium; files run in parallel forks,
// each test file owning its own engine and data directory.
export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}', 'src/**/*.test.{ts,tsx}'],
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single fork on CI's 2 cores, which
    // ran the files one after another (~19 min for the SQLite pass). Most of a file's time is
    // spent waiting (browser start, inactivity timeouts, SSE, ffmpeg), not computing, so two
    // files at a time roughly halve the wall time without overcommitting two cores with
    // Chromium. `--maxWorkers=N` on the command line still overrides this.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    // Mocks `electron` (only main-process modules import it; everything else is unaffected).
    setupFiles: ['test/main/electron-mock.ts'],
  },
});
