/**
 * Files the browser downloads appear in the session filesystem under /downloads: a real page
 * with `<a download>` is clicked over the session's CDP WebSocket (raw CDP, so no automation
 * library changes the download behavior), and the file is then read back through `/fs`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

let te: TestEngine;
let server: LocalServer;
let site: string;

beforeAll(async () => {
  te = await startTestEngine();
  server = await startLocalServer({
    '/report.csv': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' });
      res.end('a,b\n1,2\n');
    },
    '/': '<!doctype html><a id="dl" href="/report.csv" download="report.csv">download</a>',
  });
  site = server.url;
});
afterAll(async () => {
  await te?.stop();
  await server?.close();
});

function cdp(url: string) {
  const ws = new WebSocket(url);
  let next = 1;
  const pending = new Map<number, (msg: { result?: unknown; error?: unknown }) => void>();
  ws.on('message', (d) => {
    const msg = JSON.parse(d.toString());
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)!(msg);
  });
  return {
    open: new Promise((r, j) => (ws.once('open', r), ws.once('error', j))),
    send<T>(method: string, params: object = {}, sessionId?: string): Promise<T> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params, sessionId }));
      return new Promise((resolve, reject) => pending.set(id, (m) => (m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as T))));
    },
    close: () => ws.close(),
  };
}

/** Clicks `<a download>` in a new tab over raw CDP and waits until the file is whole in /downloads. */
async function downloadInto(sessionId: string, cdpWsUrl: string): Promise<string> {
  const c = cdp(cdpWsUrl);
  await c.open;
  const { targetId } = await c.send<{ targetId: string }>('Target.createTarget', { url: `${site}/` });
  const { sessionId: tab } = await c.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  for (;;) {
    const r = await c.send<{ result: { value: boolean } }>('Runtime.evaluate', { expression: '!!document.getElementById("dl")', returnByValue: true }, tab);
    if (r.result.value) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  await c.send('Runtime.evaluate', { expression: 'document.getElementById("dl").click()' }, tab);
  let names: string[] = [];
  while (!names.includes('report.csv')) {
    await new Promise((res) => setTimeout(res, 100));
    names = (await te.client.browsers.fs.listFiles(sessionId, { path: '/downloads' })).map((f) => f.name);
  }
  // Chromium writes to a temp name and renames when complete; wait for the final content.
  let text = '';
  while (text !== 'a,b\n1,2\n') text = await (await te.client.browsers.fs.readFile(sessionId, { path: '/downloads/report.csv' })).text();
  c.close();
  return text;
}

describe('browser downloads', () => {
  it('land in /downloads of the session filesystem', async () => {
    const s = await te.client.browsers.create({ headless: true });
    expect(await downloadInto(s.session_id, s.cdp_ws_url)).toBe('a,b\n1,2\n');
    await te.client.browsers.deleteByID(s.session_id);
  });

  // The engine's Playwright runner attaches with Playwright's defaults unless told not to, and its
  // default context then sends the browser's downloads to Playwright's own temp dir.
  it('still land in /downloads after /playwright/execute attached the engine’s runner', async () => {
    const s = await te.client.browsers.create({ headless: true });
    const ran = await te.client.browsers.playwright.execute(s.session_id, { code: 'return 1 + 1' });
    expect(ran.success, JSON.stringify(ran)).toBe(true);
    expect(await downloadInto(s.session_id, s.cdp_ws_url)).toBe('a,b\n1,2\n');
    await te.client.browsers.deleteByID(s.session_id);
  });
});
