/**
 * Drives the web console end to end: builds the renderer once per vitest run (into a private
 * out dir, so `out/` is not disturbed; see buildRenderer), starts a real engine serving it
 * (`uiDir`), and opens it in the run's operator browser (Debian's Chromium through playwright-core,
 * test/helpers/operator-browser.ts). Screens are saved under
 * `test-results/screens/`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { operatorBrowser } from '../helpers/operator-browser.js';
import type { EngineOptions } from '../../src/engine/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SCREENS = path.join(ROOT, 'test-results/screens');

/** `electron-vite build --outDir <outDir>`; returns the renderer directory. */
async function electronViteBuild(outDir: string): Promise<string> {
  await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/electron-vite'), ['build', '--outDir', outDir, '--logLevel', 'warn'], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const rendererDir = path.join(outDir, 'renderer');
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) throw new Error(`renderer build produced no ${rendererDir}/index.html`);
  return rendererDir;
}

/** How long a file waits for another file's build of the run (a build takes seconds; this only ends a hang). */
const SHARED_BUILD_WAIT_MS = 300_000;

/**
 * The renderer for a test file. The sources do not change during a run, so it is built once per
 * run: the global setup names a directory for the run (`rendererBuildDir`, removed at its
 * teardown); the first file to get here creates it (mkdir is atomic across the workers) and
 * builds into it, the others wait for its `done` (or `failed`) marker. The engine and the test
 * browser only read the build. Without that directory (no global setup) the file builds its own.
 */
export async function buildRenderer(): Promise<{ rendererDir: string; cleanup(): void }> {
  const shared = inject('rendererBuildDir');
  if (!shared) {
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-ui-build-'));
    return { rendererDir: await electronViteBuild(outDir), cleanup: () => fs.rmSync(outDir, { recursive: true, force: true }) };
  }
  const done = path.join(shared, 'done');
  const failed = path.join(shared, 'failed');
  const rendererDir = path.join(shared, 'out', 'renderer');
  const keep = { rendererDir, cleanup: () => {} };
  let builder = true;
  try {
    fs.mkdirSync(shared);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    builder = false;
  }
  if (builder) {
    try {
      await electronViteBuild(path.join(shared, 'out'));
    } catch (err) {
      fs.writeFileSync(failed, String((err as Error).message));
      throw err;
    }
    fs.writeFileSync(done, '');
    return keep;
  }
  for (const until = Date.now() + SHARED_BUILD_WAIT_MS; Date.now() < until;) {
    if (fs.existsSync(done)) return keep;
    if (fs.existsSync(failed)) throw new Error(`the run's renderer build failed in another test file: ${fs.readFileSync(failed, 'utf8').slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no renderer build in ${shared} after ${SHARED_BUILD_WAIT_MS / 1000} s (the file building it died?)`);
}

/**
 * A download's bytes. The operator browser runs in another process (operator-browser.ts), so
 * `download.path()` is not available: the file is streamed over the connection instead.
 */
export async function downloadBytes(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const ch of await download.createReadStream()) chunks.push(ch as Buffer);
  return Buffer.concat(chunks);
}

/** Saves the page under `test-results/screens/<name>.png` and returns the path. */
export async function saveScreen(page: Page, name: string): Promise<string> {
  await fsp.mkdir(SCREENS, { recursive: true });
  const file = path.join(SCREENS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export interface Console {
  te: TestEngine;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Signs in through the form with `key` (default: the admin key). */
  signIn(key?: string): Promise<void>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openConsole(opts: EngineOptions = {}): Promise<Console> {
  const build = await buildRenderer();
  const te = await startTestEngine({ ...opts, uiDir: build.rendererDir });
  const browser = await operatorBrowser();
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  return {
    te,
    browser,
    context,
    page,
    async signIn(key = te.adminKey) {
      await page.goto(te.url + '/');
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    screenshot: (name) => saveScreen(page, name),
    async close() {
      await browser.close().catch(() => {});
      await te.stop();
      build.cleanup();
    },
  };
}
