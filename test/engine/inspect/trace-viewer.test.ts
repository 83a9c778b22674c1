/**
 * The Playwright trace viewer (issue 17 item 4, viewer side): a trace zip recorded by
 * playwright-core is put in a session's files; `GET /browsers/{id}/trace?path=…` redirects the
 * operator's browser (real Chromium) to the viewer shipped with playwright-core, served by the
 * engine, which loads that trace through its token and shows its actions. The token reads that
 * one file of that session only; another project's key gets 404; a missing file 404.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { operatorBrowser } from '../../helpers/operator-browser.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

const SHOTS = path.resolve('resources/screenshots');

let te: TestEngine;
let site: LocalServer;
let operator: Browser;
let tmp: string;
let tracePath: string;

beforeAll(async () => {
  te = await startTestEngine();
  site = await startLocalServer({ '/': '<!doctype html><title>traced page</title><button id="b">traced button</button>' });
  operator = await operatorBrowser();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-trace-test-'));
  // A real trace, recorded as the executor's `trace: true` would.
  const context = await operator.newContext();
  await context.tracing.start({ snapshots: true, screenshots: true });
  const page = await context.newPage();
  await page.goto(`${site.url}/`);
  await page.click('#b');
  tracePath = path.join(tmp, 'trace.zip');
  await context.tracing.stop({ path: tracePath });
  await context.close();
}, 120_000);

afterAll(async () => {
  await operator?.close();
  await site?.close();
  await te?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function sessionWithTrace(): Promise<string> {
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  const put = await te.api(`/browsers/${s.session_id}/fs/write_file?path=${encodeURIComponent('/traces/run.zip')}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: fs.readFileSync(tracePath),
  });
  expect(put.status).toBeLessThan(300);
  return s.session_id;
}

describe('trace viewer', () => {
  it('opens a session’s trace file and shows its actions', async () => {
    const id = await sessionWithTrace();
    const redirect = await te.api(`/browsers/${id}/trace?path=/traces/run.zip`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const page = await operator.newPage({ viewport: { width: 1400, height: 850 } });
    page.setDefaultTimeout(120_000);
    await page.goto(redirect.headers.get('location')!);
    fs.mkdirSync(SHOTS, { recursive: true });
    // The action list shows the recorded click on #b (its title names the selector).
    await page
      .getByText(/#b/)
      .first()
      .waitFor()
      .finally(() => page.screenshot({ path: path.join(SHOTS, 'trace-viewer.png') }));
    await page.close();
  }, 300_000);

  it('its token reads that one file of that session; other callers and files are refused', async () => {
    const id = await sessionWithTrace();
    const { url } = (await (await te.api(`/browsers/${id}/trace?path=/traces/run.zip&format=json`)).json()) as { url: string };
    const token = new URL(url).pathname.split('/')[2];
    const zip = await fetch(`${te.url}/trace-viewer/${token}/trace.zip`);
    expect(zip.status).toBe(200);
    expect(Buffer.from(await zip.arrayBuffer()).equals(fs.readFileSync(tracePath))).toBe(true);
    expect((await fetch(`${te.url}/trace-viewer/${token}/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
    // Not a session JWT, and a session JWT is no trace token.
    expect((await fetch(`${te.url}/browsers/${id}/fs/read_file?path=/traces/run.zip&jwt=${token}`)).status).toBe(401);
    const sessionJwt = new URL((await te.client.browsers.retrieve(id)).cdp_ws_url).searchParams.get('jwt')!;
    expect((await fetch(`${te.url}/trace-viewer/${sessionJwt}/trace.zip`)).status).toBe(401);

    const project = await te.client.projects.create({ name: 'trace-other' });
    const key = (await te.client.apiKeys.create({ name: 'trace-other-key', project_id: project.id })).key!;
    expect((await fetch(`${te.url}/browsers/${id}/trace?path=/traces/run.zip&format=json`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
    const missing = await te.api(`/browsers/${id}/trace?path=/traces/none.zip&format=json`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBeTruthy();
    await te.client.browsers.deleteByID(id);
    expect((await fetch(`${te.url}/trace-viewer/${token}/trace.zip`)).status).toBe(404);
  }, 300_000);
});
