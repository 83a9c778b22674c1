/**
 * What an idle browser runs (issue 14 item 3, memory per session): the flags of chromium-flags.ts
 * leave out the omnibox popup's preloaded WebUI renderer, the network service's own process and
 * crashpad's handlers — each tens of MB or processes an idle session pays for nothing (figures in
 * docs/bench/results.md, "Memory per session"). A real Chromium with the sessions' flags, its process tree and
 * its targets, as the browser reports them.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, stopChromium, type LaunchedBrowser } from '../../../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../../../src/engine/runtime/chromium/chromium-flags.js';
import { findChromium } from '../../../src/engine/runtime/chromium/find-chromium.js';
import { cmdlineOf, descendants } from '../../helpers/proc.js';

/** Command lines of every process under `root` (Chromium's children retitle themselves: one string). */
const treeCommandLines = (root: number): string[] => descendants(root).map(cmdlineOf);

/** A CDP session on the first page, to make sure its renderer has started and answers. */
async function firstPageSession(b: LaunchedBrowser): Promise<string> {
  const { targetInfos } = await b.control.send('Target.getTargets');
  const page = targetInfos.find((t) => t.type === 'page')!;
  const { sessionId } = await b.control.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  return sessionId;
}

describe('an idle headless browser with the sessions’ flags', () => {
  let dir: string;
  let b: LaunchedBrowser;
  beforeAll(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-idle-'));
    b = await launchChromium({
      executable: findChromium()!,
      args: chromiumArgs({
        userDataDir: path.join(dir, 'ud'),
        headless: true,
        viewport: { width: 1280, height: 720 },
        runningAsRoot: process.getuid?.() === 0,
      }),
      env: { ...process.env, TMPDIR: dir },
    });
    // The launch answers once DevTools does; the first window's renderers start after that.
    while (!treeCommandLines(b.pid).some((c) => c.includes('--type=renderer'))) await new Promise((r) => setTimeout(r, 50));
    await b.control.send('Runtime.evaluate', { expression: '1' }, { sessionId: await firstPageSession(b) });
  });
  afterAll(async () => {
    if (b) await stopChromium(b);
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('preloads no omnibox popup WebUI', async () => {
    // The preload happens as the first window opens, before its page's renderer answers.
    const { targetInfos } = await b.control.send('Target.getTargets', { filter: [{}] });
    expect(targetInfos.some((t) => t.type === 'page')).toBe(true);
    expect(targetInfos.filter((t) => t.url.includes('omnibox-popup'))).toEqual([]);
    expect(treeCommandLines(b.pid).filter((c) => c.includes('--top-chrome-webui'))).toEqual([]);
  });

  it('runs the network service inside the browser process and no crashpad handler', () => {
    const cmds = treeCommandLines(b.pid);
    expect(cmds.some((c) => c.includes('--type=renderer'))).toBe(true);
    expect(cmds.filter((c) => c.includes('utility-sub-type=network.mojom.NetworkService'))).toEqual([]);
    expect(cmds.filter((c) => c.includes('crashpad_handler'))).toEqual([]);
  });
});
