/**
 * Runs once around each integration project's files: the place for checks that span every test
 * file. When they target PostgreSQL (BROWSERDECK_TEST_DATABASE_URL), it checks once that the server
 * answers, so a wrong URL fails the run with one clear message instead of in every file.
 * It also names the run's renderer build directory (built on first use by the renderer tests,
 * test/renderer/console-harness.ts) and removes it at the end, and starts the broker of the run's
 * operator browser (operator-browser.ts), closing that browser at the end.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { assertNoLeftoverChromium } from './chromium-leaks.js';
import { startOperatorBrowserBroker } from './operator-browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's renderer build goes; not created until a test file needs it. */
    rendererBuildDir: string;
  }
}

/** The returned teardown fails the run if a test engine's Chromium is still running at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The integration-pg project sets it in its own env (vitest.config.ts); a whole run on PostgreSQL, in the process's.
  const url = project.config.env?.BROWSERDECK_TEST_DATABASE_URL ?? process.env.BROWSERDECK_TEST_DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (err) {
      throw new Error(
        `BROWSERDECK_TEST_DATABASE_URL=${url.replace(/:[^:@/]*@/, ':***@')} does not answer: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      await client.end().catch(() => {});
    }
  }
  // A fresh name per run: a directory left by a killed run must not pass for this run's build.
  const rendererBuildDir = path.join(os.tmpdir(), `bd-ui-build-run-${process.pid}-${randomUUID().slice(0, 8)}`);
  project.provide('rendererBuildDir', rendererBuildDir);
  // The run's one operator browser, launched when a file first asks (operator-browser.ts).
  const operator = await startOperatorBrowserBroker();
  project.provide('operatorBrowserBroker', operator.url);
  return async () => {
    await operator.close();
    fs.rmSync(rendererBuildDir, { recursive: true, force: true });
    assertNoLeftoverChromium();
  };
}
