/**
 * Shared helpers for tests that drive real Chromium: a local web server with a few pages
 * (no outside network here), and checks that no browser or session directory outlives a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startLocalServer } from './local-server.js';

export interface TestWebServer {
  url: string;
  /** Number of requests served per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Serves `/` (title "Browserdeck test page"), `/title/<t>` (that title) and `/echo` (request headers as JSON). */
export async function startTestWebServer(): Promise<TestWebServer> {
  const hits = new Map<string, number>();
  const { url, close } = await startLocalServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    if (u.pathname === '/echo') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.headers));
      return;
    }
    const title = u.pathname.startsWith('/title/') ? decodeURIComponent(u.pathname.slice(7)) : 'Browserdeck test page';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${title.replace(/</g, '&lt;')}</title></head><body><h1>${title.replace(/</g, '&lt;')}</h1></body></html>`);
  });
  return { url, hits, close };
}

/** Pids of live processes whose command line contains `marker` (e.g. a test engine's data dir). */
export function processesWith(marker: string): number[] {
  try {
    const out = execFileSync('pgrep', ['-f', '--', marker], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((p) => p !== process.pid);
  } catch {
    return [];
  }
}

/** Session directories left under a data dir. */
export function sessionDirsLeft(dataDir: string): string[] {
  try {
    return fs.readdirSync(path.join(dataDir, 'sessions'));
  } catch {
    return [];
  }
}

/** Waits until `check` returns true (polling), or throws after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
