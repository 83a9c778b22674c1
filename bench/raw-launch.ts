/**
 * The floor a session's launch is held against: raw Chromium as sessions launch it (the same
 * executable and flags, headless, a fresh profile and TMPDIR), spawn → `Browser.getVersion`
 * answered. Used by bench:sessions and bench:lifecycle.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, stopChromium, type LaunchedBrowser } from '../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';

let executable: string | undefined;

/**
 * Raw Chromium as sessions launch it, in a new dir under `parent`, left running: resolves once
 * DevTools answers, with the browser, the launch's ms (spawn → DevTools answered, the dir made
 * before) and `stop` (ends it and removes the dir).
 */
export async function launchRawChromium(
  parent = os.tmpdir(),
  extraArgs: string[] = [],
): Promise<{ browser: LaunchedBrowser; ms: number; stop(): Promise<void> }> {
  // Looked up once (its probes are not part of a launch either way).
  executable ??= findChromium();
  if (!executable) throw new Error('no Chromium found');
  const dir = await fsp.mkdtemp(path.join(parent, 'raw-'));
  const stop = async (b?: LaunchedBrowser) => {
    if (b) await stopChromium(b);
    await fsp.rm(dir, { recursive: true, force: true });
  };
  try {
    const t0 = performance.now();
    const browser = await launchChromium({
      executable,
      args: chromiumArgs({
        userDataDir: path.join(dir, 'ud'),
        headless: true,
        viewport: { width: 1920, height: 1080 },
        runningAsRoot: process.getuid?.() === 0,
      }).concat(extraArgs),
      env: { ...process.env, TMPDIR: dir },
    });
    return { browser, ms: performance.now() - t0, stop: () => stop(browser) };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One timed launch in a new dir under `parent` (removed after, with the stopped browser); resolves to its ms. */
export async function rawChromiumLaunch(parent = os.tmpdir()): Promise<number> {
  const raw = await launchRawChromium(parent);
  await raw.stop();
  return raw.ms;
}
