/**
 * An engine without the session jail (no usable bubblewrap, or `--insecure-no-jail`): it says
 * so in /healthz, refuses to serve other machines unless the operator passed
 * `--insecure-no-jail`, and its CDP proxy still holds clients to the session's files by
 * policy — file: URLs refused, download paths mapped into the session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { createEngine } from '../../../src/engine/engine.js';
import { assertServable, isLoopbackHost } from '../../../src/engine/runtime/sandbox/jail-status.js';
import { guardUnjailedCommand } from '../../../src/engine/runtime/cdp/unjailed-guard.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { waitFor } from '../../helpers/chromium-web.js';

describe('serving other machines needs the jail or explicit consent', () => {
  it('tells loopback from other listening addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses a non-loopback address without the jail unless --insecure-no-jail', () => {
    const noJail = { bwrap: null, reason: 'bwrap is not installed' };
    expect(() => assertServable('0.0.0.0', noJail, false)).toThrow(
      /refusing to listen on 0\.0\.0\.0 without the session jail \(bwrap is not installed\).*--insecure-no-jail/,
    );
    expect(() => assertServable('0.0.0.0', noJail, true)).not.toThrow();
    expect(() => assertServable('127.0.0.1', noJail, false)).not.toThrow();
    expect(() => assertServable('0.0.0.0', { bwrap: '/usr/bin/bwrap' }, false)).not.toThrow();
  });

  it('an engine without bwrap does not start on 0.0.0.0', async () => {
    const dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'bd-test-'));
    process.env.BROWSERDECK_NO_BWRAP = '1';
    const engine = createEngine({ dataDir, host: '0.0.0.0', port: 0, logLevel: 'silent', print: () => {} });
    try {
      await expect(engine.start()).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 without the session jail \(BROWSERDECK_NO_BWRAP=1\)/);
    } finally {
      delete process.env.BROWSERDECK_NO_BWRAP;
      await engine.stop();
      await fs.promises.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the CDP guard maps session paths and refuses file: URLs', () => {
    const nav = guardUnjailedCommand(
      JSON.stringify({ id: 3, sessionId: 'S', method: 'Page.navigate', params: { url: ' VIEW-SOURCE:file:///etc/passwd' } }),
      '/r',
    );
    expect(nav && 'reply' in nav && JSON.parse(nav.reply)).toMatchObject({ id: 3, sessionId: 'S', error: { code: -32000 } });
    const dl = guardUnjailedCommand(
      JSON.stringify({ id: 4, method: 'Browser.setDownloadBehavior', params: { behavior: 'allow', downloadPath: '/../../etc' } }),
      '/r',
    );
    expect(dl && 'forward' in dl && JSON.parse(dl.forward).params.downloadPath).toBe('/r/etc');
    const files = guardUnjailedCommand(
      JSON.stringify({ id: 5, method: 'DOM.setFileInputFiles', params: { files: ['/home/x.txt', '../../../root/.ssh/id_rsa'] } }),
      '/r',
    );
    expect(files && 'forward' in files && JSON.parse(files.forward).params.files).toEqual(['/r/home/x.txt', '/r/root/.ssh/id_rsa']);
    expect(guardUnjailedCommand(JSON.stringify({ id: 6, method: 'Page.navigate', params: { url: 'https://example.com' } }), '/r')).toBeUndefined();
  });
});

describe('an engine run with --insecure-no-jail', () => {
  let te: TestEngine;
  let jailed: TestEngine;
  let web: LocalServer;
  const hostDir = path.join(os.tmpdir(), `bd-unjailed-dl-${process.pid}`);

  beforeAll(async () => {
    [te, jailed] = await Promise.all([startTestEngine({ insecureNoJail: true }), startTestEngine()]);
    web = await startLocalServer({
      '/file': (_req, res) =>
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.txt"' }).end('report body'),
      '/page': '<a id="dl" href="/file">download</a>',
    });
  });
  afterAll(async () => {
    await Promise.all([te?.stop(), jailed?.stop(), web?.close()]);
    await fs.promises.rm(hostDir, { recursive: true, force: true });
  });

  it('says in /healthz whether sessions are jailed', async () => {
    // /healthz also reports version, uptime and store (robustness/healthz.test.ts); here: the jail.
    expect(await (await fetch(`${te.url}/healthz`)).json()).toMatchObject({
      ok: true,
      jail: { enabled: false, reason: 'the operator chose --insecure-no-jail' },
    });
    expect(await (await fetch(`${jailed.url}/healthz`)).json()).toMatchObject({ ok: true, jail: { enabled: true } });
  });

  it('refuses file: navigation and keeps downloads inside the session', async () => {
    const s = await te.client.browsers.create({ headless: true });
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
      const cdp = await browser.contexts()[0].newCDPSession(page);
      await expect(cdp.send('Page.navigate', { url: 'file:///etc/hostname' })).rejects.toThrow(/file: URLs are blocked/);

      const browserCdp = await browser.newBrowserCDPSession();
      await browserCdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: hostDir });
      await page.goto(`${web.url}/page`);
      await page.click('#dl');
      // The host path named by the client is a session path: the file lands in the session.
      await waitFor(
        async () => {
          const list = await te.client.browsers.fs.listFiles(s.session_id, { path: hostDir }).catch(() => []);
          return list.some((f) => f.name === 'report.txt');
        },
        15_000,
        'download in the session',
      );
      expect(await (await te.client.browsers.fs.readFile(s.session_id, { path: `${hostDir}/report.txt` })).text()).toBe('report body');
      expect(fs.existsSync(path.join(hostDir, 'report.txt'))).toBe(false);
    } finally {
      await browser.close();
      await te.client.browsers.deleteByID(s.session_id);
    }
  });
});
