/**
 * Runs once around the whole suite: the place for checks that span every test file. When the
 * suite targets PostgreSQL (BROWSERDECK_TEST_DATABASE_URL), it checks once that the server
 * answers, so a wrong URL fails the run with one clear message instead of in every file.
 */
import pg from 'pg';
import { assertNoLeftoverChromium } from './chromium-leaks.js';

/** The returned teardown fails the run if a test engine's Chromium is still running at the end. */
export default async function setup(): Promise<() => void> {
  const url = process.env.BROWSERDECK_TEST_DATABASE_URL;
  if (!url) return assertNoLeftoverChromium;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`BROWSERDECK_TEST_DATABASE_URL=${url.replace(/:[^:@/]*@/, ':***@')} does not answer: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await client.end().catch(() => {});
  }
  return assertNoLeftoverChromium;
}
