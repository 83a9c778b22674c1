/**
 * The operator's browser of the tests that look at what the engine serves to people (the web
 * console, the DevTools frontend, the trace viewer, the live view): one Chromium for the whole
 * run instead of one per file. Each file connects to it (`operatorBrowser()`) and works in
 * contexts of its own, which are as separate as two browsers for what these tests check; a
 * Chromium start is ~1.3 CPU-s on this machine, and ~30 files opened one each.
 *
 * The global setup (global-setup.ts) starts a small broker on 127.0.0.1: the first file to ask
 * launches the browser (`chromium.launchServer`), every later one gets its WebSocket address,
 * and the setup's teardown closes it, so it never outlives the run. A browser that died is
 * launched again at the next request. Without the broker (a project without the global setup)
 * the file launches a browser of its own, closed with the connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserServer } from 'playwright-core';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The broker's URL (GET: the operator browser's WebSocket address); '' when not started. */
    operatorBrowserBroker: string;
  }
}

/** Debian's Chromium as the tests run it (root needs --no-sandbox; no outside network). */
const OPERATOR_CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** Launch options of the operator browser (the desktop harness loads the renderer from file://). */
const LAUNCH = { executablePath: '/usr/bin/chromium', args: [...OPERATOR_CHROMIUM_ARGS, '--allow-file-access-from-files'] };

/** Starts the broker (in the global setup's process); `close` ends the browser and the broker. */
export async function startOperatorBrowserBroker(): Promise<{ url: string; close(): Promise<void> }> {
  let server: Promise<BrowserServer> | null = null;
  const launch = () => {
    const p = chromium.launchServer(LAUNCH);
    // A crashed browser is replaced at the next request rather than handed out dead.
    p.then((s) => s.on('close', () => server === p && (server = null))).catch(() => server === p && (server = null));
    return p;
  };
  const broker = http.createServer((req, res) => {
    (server ??= launch()).then(
      (s) => res.end(s.wsEndpoint()),
      (err: unknown) => {
        res.statusCode = 500;
        res.end(err instanceof Error ? err.message : String(err));
      },
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`,
    async close() {
      broker.closeAllConnections();
      await new Promise((resolve) => broker.close(resolve));
      const s = await server?.catch(() => null);
      await s?.close();
    },
  };
}

/**
 * A connection to the run's operator browser. `close()` on it ends this file's contexts and the
 * connection, not the browser (or, without a broker, the browser it launched).
 */
export async function operatorBrowser(): Promise<Browser> {
  const broker = inject('operatorBrowserBroker');
  if (!broker) return chromium.launch(LAUNCH);
  const res = await fetch(broker);
  if (!res.ok) throw new Error(`the operator browser did not start: ${await res.text()}`);
  return chromium.connect(await res.text());
}
