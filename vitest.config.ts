import { defineConfig } from 'vitest/config';

// Integration tests start real engines and real Chromium; files run in parallel forks,
// each test file owning its own engine and data directory.
export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}', 'src/**/*.test.{ts,tsx}'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    // Mocks `electron` (only main-process modules import it; everything else is unaffected).
    setupFiles: ['test/main/electron-mock.ts'],
  },
});
