/**
 * Drives the desktop app without Electron (its binary cannot run here): the renderer bundle is
 * loaded from `file://` exactly as the app loads it, the real preload is bundled with a browser
 * stand-in for `electron` (electron-renderer-shim.ts), and its IPC lands on the real main-process
 * core (app-core.ts: embedded engine host, vault with a real cipher, connections, control plane)
 * through the real `registerIpc` over the mocked ipcMain. So every renderer → main → engine path
 * is the app's own code; only the transport between page and main is the harness's.
 *
 * Chromium gets `--allow-file-access-from-files` so the bundle's module scripts load from
 * file:// (Electron's own file: handler allows this); nothing else is relaxed — in particular
 * the page's origin stays `file://`, so any direct fetch to the engine is cross-origin, as in
 * the app.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ipcMain } from 'electron';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { createAppCore, type AppCore } from '../../../src/main/app-core.js';
import { registerIpc } from '../../../src/main/ipc-main.js';
import { appFrameCheck } from '../../../src/main/ipc-router.js';
import { STREAM_OPEN_CHANNEL, type EventChannel, type EventPayloads } from '../../../src/shared/ipc/contract.js';
import { fakeCipher } from '../../main/fake-cipher.js';
import { buildRenderer, saveScreen } from '../console-harness.js';
import { operatorBrowser } from '../../helpers/operator-browser.js';
import { decodeIpc, encodeIpc } from './ipc-wire.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

type MockIpcMain = {
  handlers: Map<string, (event: unknown, ...args: unknown[]) => unknown>;
  listeners: Map<string, Set<(event: unknown, ...args: unknown[]) => void>>;
};

/** The preload, bundled for a plain page with the electron stand-in, run only in the top frame. */
async function preloadScript(): Promise<string> {
  const out = await build({
    entryPoints: [path.join(ROOT, 'src/preload/index.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    alias: { electron: path.join(import.meta.dirname, 'electron-renderer-shim.ts') },
    logLevel: 'silent',
  });
  // Electron runs preloads in the main frame only (nodeIntegrationInSubFrames is off).
  return `if (window === window.top && location.protocol === 'file:') {\n${out.outputFiles[0].text}\n}`;
}

/** main's end of a stream's MessageChannel: posts into the page's port through the harness. */
class HarnessPort extends EventEmitter {
  private closed = false;
  constructor(
    private readonly frame: Frame,
    private readonly id: number,
  ) {
    super();
  }
  postMessage(message: unknown): void {
    if (this.closed) return;
    void this.frame
      .evaluate(([id, data]) => (window as unknown as { __bdFromMain: { port(i: number, d: string): void } }).__bdFromMain.port(id, data), [
        this.id,
        encodeIpc(message),
      ] as const)
      .catch(() => {});
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.frame
      .evaluate((id) => (window as unknown as { __bdFromMain: { closePort(i: number): void } }).__bdFromMain.closePort(id), this.id)
      .catch(() => {});
    this.emit('close');
  }
  start(): void {}
}

export interface DesktopApp {
  core: AppCore;
  page: Page;
  browser: Browser;
  appUrl: string;
  userData: string;
  downloads: string;
  /** Every request the page made to an http(s) URL (the app itself is file://). */
  pageRequests: string[];
  /** Every IPC invoke the renderer made, by channel. */
  invokes: string[];
  open(route: string): Promise<void>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openDesktopApp(): Promise<DesktopApp> {
  const ui = await buildRenderer();
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-desktop-'));
  // Run as root (CI), the embedded engine's jails are unprivileged users who must pass through
  // userData to its data dir; a desktop user's app runs as that user and needs nothing of the kind.
  fs.chmodSync(userData, 0o711);
  const downloads = path.join(userData, 'downloads');
  fs.mkdirSync(downloads);
  const appUrl = pathToFileURL(path.join(ui.rendererDir, 'index.html')).toString();
  // The page exists only after the core has started; main's broadcasts before that go nowhere.
  const shown: { page?: Page } = {};
  const core = createAppCore({
    userData,
    rendererDir: ui.rendererDir,
    cipher: fakeCipher({ backend: 'basic_text' }),
    version: '0.0.0-desktop-harness',
    platform: process.platform,
    chooseSavePath: async (name) => path.join(downloads, name),
    openExternal: async () => {},
    // Electron windows cannot open here; the opener's own checks are tested in test/main/inspector-window.
    openInspectorWindow: () => {},
    broadcast: <E extends EventChannel>(event: E, payload: EventPayloads[E]) => {
      void shown.page
        ?.evaluate(([e, p]) => (window as unknown as { __bdFromMain?: { event(n: string, d: string): void } }).__bdFromMain?.event(e, p), [
          event,
          encodeIpc(payload),
        ] as const)
        .catch(() => {});
    },
    healthPollMs: 2_000,
  });
  await core.load();
  const unregister = registerIpc(core.handlers, core.controlPlane, appFrameCheck(appUrl));
  await core.startEngine();

  const browser = await operatorBrowser();
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const ipc = ipcMain as unknown as MockIpcMain;
  const invokes: string[] = [];
  const senderFrame = (frame: Frame) => ({ url: frame.url(), parent: frame.parentFrame() });
  const ports = new Map<number, HarnessPort>();
  await context.exposeBinding('__bdInvoke', async (source, channel: string, args: string) => {
    invokes.push(channel);
    const handler = ipc.handlers.get(channel);
    if (!handler) return encodeIpc({ error: { name: 'Error', message: `No handler registered for '${channel}'` } });
    return encodeIpc(await handler({ senderFrame: senderFrame(source.frame) }, ...(decodeIpc(args) as unknown[])));
  });
  await context.exposeBinding('__bdStreamOpen', async (source, id: number, channel: string, payload: string) => {
    if (channel !== STREAM_OPEN_CHANNEL) return;
    const port = new HarnessPort(source.frame, id);
    ports.set(id, port);
    port.on('close', () => ports.delete(id));
    for (const fn of ipc.listeners.get(channel) ?? []) fn({ senderFrame: senderFrame(source.frame), ports: [port] }, decodeIpc(payload));
  });
  await context.exposeBinding('__bdPortMessage', async (_source, id: number, data: string) => {
    ports.get(id)?.emit('message', { data: decodeIpc(data) });
  });
  await context.addInitScript({ content: await preloadScript() });
  const page = await context.newPage();
  shown.page = page;
  const pageRequests: string[] = [];
  page.on('request', (r) => {
    if (/^https?:/.test(r.url())) pageRequests.push(`${r.method()} ${r.url()}`);
  });
  page.setDefaultTimeout(90_000);
  if (process.env.PANES_DEBUG) page.on('pageerror', (e) => console.log('PAGEERROR', e.message, e.stack));

  return {
    core,
    page,
    browser,
    appUrl,
    userData,
    downloads,
    pageRequests,
    invokes,
    async open(route) {
      await page.goto(`${appUrl}#${route}`);
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    screenshot: (name) => saveScreen(page, name),
    async close() {
      for (const p of ports.values()) p.close();
      await browser.close().catch(() => {});
      unregister();
      await core.stop();
      ui.cleanup();
      fs.rmSync(userData, { recursive: true, force: true });
    },
  };
}
