/**
 * Classic W3C WebDriver under a session's `webdriver_url` (`/browsers/{id}/webdriver`), driven by
 * the real clients against a real session with a project-scoped key: WebdriverIO `remote()`
 * (classic, and with `webSocketUrl: true` BiDi on the same browser), `attach()`, and
 * selenium-webdriver's Builder with HTTP Basic credentials in the server URL. Each runs a script
 * on a local page (navigate, find, type, click, screenshot, execute). Then what must hold around
 * it: deleting the WebDriver session leaves the Browserdeck session running (a CDP client still
 * sees the page), chromedriver is jailed (its own mount and network namespaces, no host TCP
 * listener), capabilities cannot make it launch a browser, credentials are checked and scoped,
 * and ending the session stops its chromedriver.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Kernel from '@onkernel/sdk';
import { remote, attach } from 'webdriverio';
import { Builder, By } from 'selenium-webdriver';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { cmdlineOf, descendants, isAlive, listeningInodes, pidsWith, socketInodes } from '../../helpers/proc.js';
import { pollUntil } from '../../helpers/poll-until.js';

const PAGE = `<!doctype html><title>WebDriver page</title>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('name').value">Go</button>
<p id="out"></p>`;

let te: TestEngine;
let web: LocalServer;
let tenant: Kernel;
let tenantKey: string;
let otherKey: string;
/**
 * One tenant session for the cases that drive the browser or call its chromedriver without
 * needing a fresh one (a launch is ~2 CPU-s): each client ends its own WebDriver session and
 * loads the form at a URL of its own (`formFor`), so a page an earlier case left can never stand
 * in for the one a later case checks. The cases about a session's end (chromedriver stopping, an
 * ended session's 404) and the unjailed engine make their own.
 */
let shared: Awaited<ReturnType<Kernel['browsers']['create']>>;
/** The test page, at a URL naming the client that loads it. */
const formFor = (client: string) => `${web.url}/form?by=${client}`;

beforeAll(async () => {
  te = await startTestEngine();
  web = await startLocalServer({ '/form': PAGE });
  const project = await te.client.projects.create({ name: 'webdriver-tenant' });
  tenantKey = (await te.client.apiKeys.create({ name: 'webdriver-key', project_id: project.id })).key!;
  tenant = te.clientWith({ apiKey: tenantKey });
  const other = await te.client.projects.create({ name: 'webdriver-other' });
  otherKey = (await te.client.apiKeys.create({ name: 'webdriver-other-key', project_id: other.id })).key!;
  shared = await tenant.browsers.create({ headless: true, timeout_seconds: 600 });
});

afterAll(async () => {
  if (shared) await tenant.browsers.deleteByID(shared.session_id);
  await web?.close();
  await te?.stop();
});

/** Browserdeck's fields of the Session object that the official client's types do not name. */
const webdriverUrlOf = (s: object) => (s as { webdriver_url: string }).webdriver_url;
const jwtOf = (s: object) => (s as { jwt: string }).jwt;

/** WebdriverIO connection options for a session's webdriver_url, with a bearer key. */
function wdioOptions(webdriverUrl: string, key = tenantKey) {
  const u = new URL(webdriverUrl);
  return {
    protocol: u.protocol.replace(':', ''),
    hostname: u.hostname,
    port: Number(u.port),
    path: u.pathname,
    headers: { authorization: `Bearer ${key}` },
    logLevel: 'error' as const,
    connectionRetryCount: 0,
  };
}

/** The session's jailed chromedriver process (its bwrap is named by the session's socket dir), or undefined. */
function chromedriverOf(sessionId: string): number | undefined {
  const jails = pidsWith(`/sessions/${sessionId}/webdriver`).filter((pid) => cmdlineOf(pid).includes('bwrap'));
  return jails.flatMap((pid) => descendants(pid)).find((pid) => /^\S*chromedriver --port=/.test(cmdlineOf(pid)));
}

/** The host's listening TCP sockets: inode and whether bound to 127.0.0.1 / ::1 only. */
function loopbackListeners(): Array<{ inode: string; loopback: boolean }> {
  const out: Array<{ inode: string; loopback: boolean }> = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue;
      const addr = cols[1].split(':')[0];
      out.push({ inode: cols[9], loopback: addr === '0100007F' || addr === '00000000000000000000000001000000' });
    }
  }
  return out;
}

/** The same script for every client: type a name, click, read the greeting. */
const GREETING = 'Hello Ada';

async function pageOfSession(cdpWsUrl: string, urlPart: string) {
  const browser = await chromium.connectOverCDP(cdpWsUrl);
  try {
    const pages = browser.contexts().flatMap((c) => c.pages());
    const page = pages.find((p) => p.url().includes(urlPart));
    return page ? { url: page.url(), out: await page.locator('#out').textContent() } : undefined;
  } finally {
    await browser.close();
  }
}

describe('classic WebDriver clients', () => {
  it('WebdriverIO remote() (classic) runs a script; deleteSession leaves the Browserdeck session running', async () => {
    const s = shared;
    const form = formFor('wdio-classic');
    expect(webdriverUrlOf(s)).toBe(`${te.url}/browsers/${s.session_id}/webdriver`);
    const b = await remote({ ...wdioOptions(webdriverUrlOf(s)), capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': true } });
    expect(b.isBidi).toBe(false);
    // Nothing of chromedriver's inside address comes back.
    expect(JSON.stringify(b.capabilities)).not.toMatch(/debuggerAddress|9222|9515/);
    await b.url(form);
    expect(await b.getTitle()).toBe('WebDriver page');
    await b.$('#name').setValue('Ada');
    await b.$('#go').click();
    expect(await b.$('#out').getText()).toBe(GREETING);
    const png = Buffer.from(await b.takeScreenshot(), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(await b.execute(() => document.querySelector('#out')!.textContent + '!')).toBe(`${GREETING}!`);
    await b.deleteSession();

    // The browser session is still there, with the page the script left.
    expect((await tenant.browsers.retrieve(s.session_id)).deleted_at).toBeUndefined();
    expect(await pageOfSession(s.cdp_ws_url, form)).toEqual({ url: form, out: GREETING });
  });

  it('WebdriverIO remote() with webSocketUrl: true gets BiDi on the same browser through the engine; attach() continues the session', async () => {
    const s = shared;
    const form = formFor('wdio-bidi');
    const b = await remote({ ...wdioOptions(webdriverUrlOf(s)), capabilities: { browserName: 'chrome', webSocketUrl: true } });
    expect(b.isBidi).toBe(true);
    expect(b.capabilities.webSocketUrl).toMatch(new RegExp(`^${te.url.replace(/^http/, 'ws')}/browsers/${s.session_id}/webdriver\\?jwt=`));
    const logs: string[] = [];
    b.on('log.entryAdded', (e: { text: string | null }) => logs.push(String(e.text)));
    await b.sessionSubscribe({ events: ['log.entryAdded'] });
    await b.url(form);
    await b.$('#name').setValue('Ada');
    await b.$('#go').click();
    expect(await b.$('#out').getText()).toBe(GREETING);
    expect(
      Buffer.from(await b.takeScreenshot(), 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    await b.execute(() => console.log('from-webdriver-bidi'));
    await pollUntil(
      'the console message over BiDi',
      async () => logs.slice(),
      (l) => l.includes('from-webdriver-bidi'),
    );
    // BiDi-only: the browsing contexts are the session's tabs.
    const tree = await b.browsingContextGetTree({});
    expect(tree.contexts.some((c) => c.url === form)).toBe(true);

    const again = await attach({ ...wdioOptions(webdriverUrlOf(s)), sessionId: b.sessionId, capabilities: b.capabilities });
    expect(await again.$('#out').getText()).toBe(GREETING);
    expect(await again.getUrl()).toBe(form);
    await b.deleteSession();
  });

  it('selenium-webdriver Builder.usingServer with the session JWT as the Basic password', async () => {
    const s = shared;
    const form = formFor('selenium');
    const u = new URL(webdriverUrlOf(s));
    u.username = 'selenium';
    u.password = jwtOf(s);
    const driver = await new Builder().usingServer(u.toString()).forBrowser('chrome').build();
    try {
      await driver.get(form);
      expect(await driver.getTitle()).toBe('WebDriver page');
      await driver.findElement(By.id('name')).sendKeys('Ada');
      await driver.findElement(By.id('go')).click();
      expect(await driver.findElement(By.id('out')).getText()).toBe(GREETING);
      const png = Buffer.from(await driver.takeScreenshot(), 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(await driver.executeScript('return document.title')).toBe('WebDriver page');
    } finally {
      await driver.quit();
    }
    expect(await pageOfSession(s.cdp_ws_url, form)).toEqual({ url: form, out: GREETING });
  });
});

describe('the session chromedriver', () => {
  it('runs jailed: its own mount and network namespaces, no host TCP listener; stops with the session', async () => {
    const s = await tenant.browsers.create({ headless: true });
    const before = listeningInodes();
    const b = await remote({ ...wdioOptions(webdriverUrlOf(s)), capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': true } });
    await b.url(`${web.url}/form`);
    const pid = chromedriverOf(s.session_id);
    expect(pid, 'a jailed chromedriver for the session').toBeDefined();
    const ns = (p: number | 'self', kind: string) => fs.readlinkSync(`/proc/${p}/ns/${kind}`);
    expect(ns(pid!, 'mnt')).not.toBe(ns('self', 'mnt'));
    expect(ns(pid!, 'net')).not.toBe(ns('self', 'net'));
    // No host listening socket appeared for chromedriver or the engine (this process).
    const opened = [...listeningInodes()].filter((i) => !before.has(i));
    const ours = new Set([...descendants(pid!).flatMap(socketInodes), ...socketInodes(process.pid)]);
    expect(opened.filter((i) => ours.has(i))).toEqual([]);
    await b.deleteSession();

    await tenant.browsers.deleteByID(s.session_id);
    // The teardown (chromedriver with it) runs behind DELETE's answer.
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false), { timeout: 15_000, interval: 50 });
    expect(chromedriverOf(s.session_id)).toBeUndefined();
  });

  it('ignores goog:chromeOptions binary/args: no browser is launched, the session browser is driven', async () => {
    const s = shared;
    const form = formFor('raw-w3c');
    const escape = {
      binary: '/usr/bin/chromium',
      args: ['--headless=new', '--no-sandbox', '--remote-debugging-port=9444', '--user-data-dir=/tmp/bd-wd-escape'],
    };
    const res = await fetch(`${webdriverUrlOf(s)}/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenantKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        capabilities: { alwaysMatch: { pageLoadStrategy: 'normal' }, firstMatch: [{ browserName: 'chrome', 'goog:chromeOptions': escape }] },
        desiredCapabilities: { 'goog:chromeOptions': escape },
      }),
    });
    expect(res.status).toBe(200);
    const created = (await res.json()) as { value: { sessionId: string; capabilities: Record<string, unknown> } };
    expect(created.value.capabilities['goog:chromeOptions']).toBeUndefined();
    // No browser was launched with the client's flags, in the jail or anywhere else.
    expect(pidsWith('bd-wd-escape')).toEqual([]);
    const sid = created.value.sessionId;
    const nav = await fetch(`${webdriverUrlOf(s)}/session/${sid}/url`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenantKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: form }),
    });
    expect(nav.status).toBe(200);
    // The navigation happened in the session's own browser.
    expect((await pageOfSession(s.cdp_ws_url, form))?.url).toBe(form);
    expect(pidsWith('bd-wd-escape')).toEqual([]);
    // chromedriver's own errors pass through as W3C errors with their status.
    const bad = await fetch(`${webdriverUrlOf(s)}/session/not-a-session/url`, { headers: { authorization: `Bearer ${tenantKey}` } });
    expect(bad.status).toBe(404);
    // A path that decodes to control characters or a query is a command chromedriver does not know, not a failure.
    for (const odd of ['x%0D%0AHost:%20evil', 'status%3Fa=b', '%2e%2e%2fstatus']) {
      const r = await fetch(`${webdriverUrlOf(s)}/${odd}`, { headers: { authorization: `Bearer ${tenantKey}` } });
      expect(r.status, odd).toBe(404);
    }
    // … and carry the Error object's fields beside them.
    expect(await bad.json()).toMatchObject({ value: { error: 'invalid session id' }, code: 'invalid_session_id', message: 'invalid session id', details: [] });
    await fetch(`${webdriverUrlOf(s)}/session/${sid}`, { method: 'DELETE', headers: { authorization: `Bearer ${tenantKey}` } });
  });

  it('without the jail: runs on the host bound to 127.0.0.1 only, drives the session, stops with it', async () => {
    const plain = await startTestEngine({ insecureNoJail: true });
    let stopped = false;
    try {
      const s = await plain.client.browsers.create({ headless: true });
      const b = await remote({
        ...wdioOptions(webdriverUrlOf(s), plain.adminKey),
        capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': true },
      });
      await b.url(`${web.url}/form`);
      await b.$('#name').setValue('Ada');
      await b.$('#go').click();
      expect(await b.$('#out').getText()).toBe(GREETING);
      const pid = descendants(process.pid).find((p) => /^\S*chromedriver --port=0/.test(cmdlineOf(p)));
      expect(pid, 'an unjailed chromedriver').toBeDefined();
      const inodes = new Set(socketInodes(pid!));
      const listening = loopbackListeners().filter((l) => inodes.has(l.inode));
      expect(listening.length).toBeGreaterThan(0);
      expect(listening.every((l) => l.loopback)).toBe(true);
      await b.deleteSession();
      expect(await pageOfSession(s.cdp_ws_url, '/form')).toEqual({ url: `${web.url}/form`, out: GREETING });
      await plain.client.browsers.deleteByID(s.session_id);
      await vi.waitFor(() => expect(isAlive(pid!)).toBe(false), { timeout: 15_000, interval: 50 });
      // A session still running when the engine stops takes its chromedriver with it.
      const s2 = await plain.client.browsers.create({ headless: true });
      expect((await fetch(`${webdriverUrlOf(s2)}/status`, { headers: { authorization: `Bearer ${plain.adminKey}` } })).status).toBe(200);
      const pid2 = descendants(process.pid).find((p) => /^\S*chromedriver --port=0/.test(cmdlineOf(p)));
      expect(pid2).toBeDefined();
      await plain.stop();
      stopped = true;
      expect(isAlive(pid2!)).toBe(false);
    } finally {
      if (!stopped) await plain.stop();
    }
  });

  it('checks credentials: none → 401, a wrong Basic password → 401, another project → 404, an ended session → 404', async () => {
    const s = await tenant.browsers.create({ headless: true });
    const status = `${webdriverUrlOf(s)}/status`;
    expect((await fetch(status)).status).toBe(401);
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    expect((await fetch(status, { headers: basic('x', 'not-a-key') })).status).toBe(401);
    const other = await fetch(status, { headers: { authorization: `Bearer ${otherKey}` } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('not_found');
    expect((await fetch(status, { headers: basic('x', otherKey) })).status).toBe(404);
    // The tenant's key as the Basic password, and the JWT in the query, both work.
    expect((await fetch(status, { headers: basic('', tenantKey) })).status).toBe(200);
    expect((await fetch(`${status}?jwt=${encodeURIComponent(jwtOf(s))}`)).status).toBe(200);
    // A session token authorizes its own session only.
    const s2 = shared;
    expect((await fetch(`${webdriverUrlOf(s2)}/status`, { headers: basic('x', jwtOf(s)) })).status).toBe(403);
    await tenant.browsers.deleteByID(s.session_id);
    const gone = await fetch(status, { headers: { authorization: `Bearer ${tenantKey}` } });
    expect(gone.status).toBe(404);
  });
});
