/**
 * The floor a session's launch is held against: raw Chromium as sessions launch it (the same
 * executable and flags, headless, a fresh profile and TMPDIR), spawn → `Browser.getVersion`
 * answered. Used by bench:sessions and bench:lifecycle.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, stopChromium } from '../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';

let executable: string | undefined;

/** One timed launch in a new dir under `parent` (removed after, with the stopped browser); resolves to its ms. */
export async function rawChromiumLaunch(parent = os.tmpdir()): Promise<number> {
  // Looked up once (its probes are not part of a launch either way).
  executable ??= findChromium();
  if (!executable) throw new Error('no Chromium found');
  const dir = await fsp.mkdtemp(path.join(parent, 'raw-'));
  try {
    const t0 = performance.now();
    const b = await launchChromium({
      executable,
      args: chromiumArgs({
        userDataDir: path.join(dir, 'ud'),
        headless: true,
        viewport: { width: 1920, height: 1080 },
        runningAsRoot: process.getuid?.() === 0,
      }),
      env: { ...process.env, TMPDIR: dir },
    });
    const ms = performance.now() - t0;
    await stopChromium(b);
    return ms;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
