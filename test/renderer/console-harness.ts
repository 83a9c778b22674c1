/**
 * Drives the web console end to end: builds the renderer once per test file (into a private
 * out dir, so parallel files and `out/` are not disturbed), starts a real engine serving it
 * (`uiDir`), and opens Debian's Chromium with playwright-core. Screens are saved under
 * `test-results/screens/`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import type { EngineOptions } from '../../src/engine/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SCREENS = path.join(ROOT, 'test-results/screens');

/** `npx electron-vite build --outDir <tmp>`; returns the renderer directory. */
export function buildRenderer(): { rendererDir: string; cleanup(): void } {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-ui-build-'));
  execFileSync('npx', ['electron-vite', 'build', '--outDir', outDir, '--logLevel', 'warn'], { cwd: ROOT, stdio: 'pipe' });
  const rendererDir = path.join(outDir, 'renderer');
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) throw new Error(`renderer build produced no ${rendererDir}/index.html`);
  return { rendererDir, cleanup: () => fs.rmSync(outDir, { recursive: true, force: true }) };
}

/** Debian's Chromium as these tests run it (root needs --no-sandbox; no outside network). */
export const TEST_CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

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
  const build = buildRenderer();
  const te = await startTestEngine({ ...opts, uiDir: build.rendererDir });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: TEST_CHROMIUM_ARGS,
  });
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
