/**
 * The escapes issue 11 listed, tried as a tenant holding only a project-scoped key, each against
 * the real engine, real Chromium and real bubblewrap. On the engine before the jail each of these
 * succeeded (the admin key read through file://, downloads written to any host dir, a DevTools
 * port open on the host, metadata addresses reachable, browsers outliving `kill -9`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startEngineProcess } from '../../helpers/engine-process.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { waitFor } from '../../helpers/chromium-web.js';
import { cmdlineOf, descendants, isAlive as alive, listeningInodes, pidsWith as withMarker, socketInodes } from '../../helpers/proc.js';
import { unmountLeftover } from '../../../src/engine/runtime/session/session-disks.js';
import { onlineNetnsAvailable } from '../../../src/engine/runtime/sandbox/online-netns.js';

let te: TestEngine;
let tenant: Kernel;
let web: LocalServer;

beforeAll(async () => {
  te = await startTestEngine();
  const project = await te.client.projects.create({ name: 'tenant' });
  const key = await te.client.apiKeys.create({ name: 'tenant-key', project_id: project.id });
  tenant = te.clientWith({ apiKey: key.key! });
  web = await startLocalServer({
    '/file': (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="loot.txt"' }).end('downloaded bytes'),
    '/page': '<title>page</title><a id="dl" href="/file">download</a>',
  });
});
afterAll(async () => {
  await shared?.then((x) => x.browser.close()).catch(() => {});
  await web?.close();
  await te?.stop();
});

async function withPage<T>(fn: (page: Page, browser: Browser, id: string) => Promise<T>): Promise<T> {
  const s = await tenant.browsers.create({ headless: true });
  const browser = await chromium.connectOverCDP(s.cdp_ws_url);
  try {
    return await fn(browser.contexts()[0].pages()[0], browser, s.session_id);
  } finally {
    await browser.close();
    await tenant.browsers.deleteByID(s.session_id);
  }
}

let shared: Promise<{ browser: Browser; id: string }> | undefined;
/**
 * `withPage` on one session for the tests that change nothing of it but a tab of their own
 * and its download behaviour (its sockets and browser stay as launched): launched once, by the first.
 */
async function withSharedPage<T>(fn: (page: Page, browser: Browser, id: string) => Promise<T>): Promise<T> {
  shared ??= tenant.browsers.create({ headless: true }).then(async (s) => ({ browser: await chromium.connectOverCDP(s.cdp_ws_url), id: s.session_id }));
  const { browser, id } = await shared;
  const page = await browser.contexts()[0].newPage();
  try {
    return await fn(page, browser, id);
  } finally {
    await page.close();
  }
}

describe('a jailed session (project-scoped key)', () => {
  it('cannot read the data dir, other sessions or shadow files through file://', async () => {
    const other = await te.client.browsers.create({ headless: true });
    fs.writeFileSync(path.join(te.dataDir, 'sessions', other.session_id, 'root', 'other-secret.txt'), 'other session secret');
    try {
      await withSharedPage(async (page, _browser, id) => {
        const adminKey = fs.readFileSync(path.join(te.dataDir, 'admin-api-key'), 'utf8').trim();
        const targets = [
          path.join(te.dataDir, 'admin-api-key'),
          path.join(te.dataDir, 'browserdeck.sqlite'),
          path.join(te.dataDir, 'sessions', other.session_id, 'root', 'other-secret.txt'),
          '/etc/shadow',
        ];
        for (const target of targets) {
          // A tab per target: a refused load's error page commits after goto rejects and would
          // interrupt the next goto in the same tab, making its '' mean nothing.
          const tab = await page.context().newPage();
          const text = await tab.goto(`file://${target}`).then(
            () => tab.evaluate(() => document.body?.innerText ?? ''),
            (err: Error) => `refused: ${err.message}`,
          );
          await tab.close();
          expect(text, target).not.toContain('interrupted by another navigation');
          expect(text, target).not.toContain(adminKey);
          expect(text, target).not.toContain('other session secret');
          expect(text, target).not.toMatch(/^root:/m);
        }
        // What file:// does show is the session's own filesystem.
        await tenant.browsers.fs.writeFile(id, Buffer.from('mine'), { path: '/tmp/mine.txt' });
        const own = await page.context().newPage();
        await own.goto('file:///tmp/mine.txt');
        expect(await own.evaluate(() => document.body.innerText)).toBe('mine');
      });
    } finally {
      await te.client.browsers.deleteByID(other.session_id);
    }
  });

  it('cannot upload a host file through DOM.setFileInputFiles', async () => {
    await withSharedPage(async (page) => {
      await page.setContent('<input type=file id=f>');
      const cdp = await page.context().newCDPSession(page);
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#f' });
      await cdp.send('DOM.setFileInputFiles', { nodeId, files: [path.join(te.dataDir, 'admin-api-key')] }).catch(() => {});
      const read = await page.evaluate(() => {
        const f = (document.getElementById('f') as HTMLInputElement).files?.[0];
        return f ? f.text().catch(() => '') : Promise.resolve('');
      });
      expect(read).not.toContain('bdk_');
    });
  });

  it('keeps downloads inside the session: a host download dir gets nothing, /tmp/downloads works (also after a BiDi client)', async () => {
    const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-host-dl-'));
    try {
      // The shared session: the download behaviour set here (or reset by the BiDi client) is
      // used by no later test, none of which downloads.
      await withSharedPage(async (page, browser, id) => {
        const cdp = await browser.newBrowserCDPSession();
        await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: hostDir });
        await page.goto(`${web.url}/page`);
        await page.click('#dl');
        // Kernel's documented flow: a session path, read back through the fs API.
        await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp/downloads', eventsEnabled: true });
        await page.click('#dl');
        await waitFor(
          async () => (await tenant.browsers.fs.listFiles(id, { path: '/tmp/downloads' }).catch(() => [])).some((f) => f.name === 'loot.txt'),
          15_000,
          'download in /tmp/downloads',
        );
        expect(await (await tenant.browsers.fs.readFile(id, { path: '/tmp/downloads/loot.txt' })).text()).toBe('downloaded bytes');

        // A WebDriver BiDi client resets download behaviour; the next download still stays inside.
        const s = await tenant.browsers.retrieve(id);
        const { WebSocket } = await import('ws');
        const ws = new WebSocket(s.webdriver_ws_url!);
        await new Promise((r, j) => ws.once('open', r).once('error', j));
        ws.send(JSON.stringify({ id: 1, method: 'session.new', params: { capabilities: {} } }));
        await new Promise((r) => ws.once('message', r));
        await page.click('#dl');
        await new Promise((r) => setTimeout(r, 1500));
        ws.close();
      });
      expect(fs.readdirSync(hostDir)).toEqual([]);
    } finally {
      fs.rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it('a compromised browser planting symlinks in its writable socket dir gets no host file into the next launch', async () => {
    const secret = path.join(te.dataDir, 'planted-secret.txt');
    fs.writeFileSync(secret, 'host secret for the jail');
    await withPage(async (_page, browser, id) => {
      const rt = (te.engine.services.sessions as { get(id: string): { restarts: number } }).get(id);
      // What the browser can write from inside: its socket dir (`jail/`). Plant the names the
      // engine binds into a launch, then crash the browser so it is launched again.
      const sockDir = path.join(te.dataDir, 'sessions', id, 'jail');
      for (const name of ['egress.sock', 'cdp.sock']) {
        fs.rmSync(path.join(sockDir, name), { force: true });
        fs.symlinkSync(secret, path.join(sockDir, name));
      }
      const cdp = await browser.newBrowserCDPSession();
      await cdp.send('Browser.crash').catch(() => {});
      await waitFor(() => rt.restarts > 0, 20_000, 'browser relaunched');
      const s = await tenant.browsers.retrieve(id);
      const again = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        const page = again.contexts()[0].pages()[0] ?? (await again.contexts()[0].newPage());
        const seen = await page.goto('file:///run/browserdeck/egress.sock').then(
          () => page.evaluate(() => document.body?.innerText ?? ''),
          () => '',
        );
        expect(seen).not.toContain('host secret');
        // And its way out still works.
        const fresh = await again.contexts()[0].newPage();
        await fresh.goto(`${web.url}/page`);
        expect(await fresh.title()).toBe('page');
      } finally {
        await again.close();
      }
    });
  });

  it("a compromised browser swapping its DevTools socket for a link to a host socket does not redirect the engine's connections", async () => {
    // A host Unix socket that records who connects (standing in for a daemon's control socket).
    const hostSocket = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bd-hostsock-')), 'daemon.sock');
    const seen: string[] = [];
    const daemon = net.createServer((c) => c.once('data', (d) => seen.push(String(d).split('\r\n')[0])).end());
    await new Promise<void>((r) => daemon.listen(hostSocket, r));
    try {
      await withPage(async (_page, _browser, id) => {
        const sockDir = path.join(te.dataDir, 'sessions', id, 'jail');
        fs.renameSync(path.join(sockDir, 'devtools.sock'), path.join(sockDir, 'devtools.sock.real'));
        fs.symlinkSync(hostSocket, path.join(sockDir, 'devtools.sock'));
        // Every new client makes the engine open a DevTools connection to the browser.
        const s = await tenant.browsers.retrieve(id);
        const again = await chromium.connectOverCDP(s.cdp_ws_url);
        try {
          const fresh = await again.contexts()[0].newPage();
          await fresh.goto(`${web.url}/page`);
          expect(await fresh.title()).toBe('page');
        } finally {
          await again.close();
        }
        expect(seen).toEqual([]);
      });
    } finally {
      daemon.close();
      fs.rmSync(path.dirname(hostSocket), { recursive: true, force: true });
    }
  });

  it('opens no DevTools port on the host', async () => {
    await withSharedPage(async (_page, _browser, id) => {
      const listening = listeningInodes();
      const rt = te.engine.services.sessions as { get(id: string): { browser?: { pid: number } } };
      const pids = descendants(rt.get(id).browser!.pid);
      expect(pids.length).toBeGreaterThan(3);
      const open = pids.flatMap((pid) => socketInodes(pid)).filter((inode) => listening.has(inode));
      expect(open).toEqual([]);
    });
  });

  // The engine gives the browser's namespace a veth pair that stays inside it
  // (runtime/sandbox/online-netns.ts); before, pages read navigator.onLine === false.
  it('looks online to its pages, while its namespace still has no route anywhere, and stays unchanged once it runs', async () => {
    const online = await onlineNetnsAvailable();
    await withSharedPage(async (page, _browser, id) => {
      expect(await page.evaluate(() => navigator.onLine)).toBe(online);
      const rt = te.engine.services.sessions as { get(id: string): { browser?: { pid: number } } };
      const chromiumPid = descendants(rt.get(id).browser!.pid).find((pid) => /chromium$/.test(cmdlineOf(pid).split(' ')[0]));
      expect(chromiumPid).toBeDefined();
      const links = fs
        .readFileSync(`/proc/${chromiumPid}/net/dev`, 'utf8')
        .split('\n')
        .slice(2)
        .map((l) => l.split(':')[0].trim())
        .filter(Boolean)
        .sort();
      expect(links).toEqual(online ? ['bd0', 'bd1', 'lo'] : ['lo']);
      // The main routing table is empty (its header line only): no address outside is routable.
      expect(fs.readFileSync(`/proc/${chromiumPid}/net/route`, 'utf8').trim().split('\n')).toHaveLength(1);
      // Settled before Chromium started, so it never sees a network change (which fails the requests
      // in flight with net::ERR_NETWORK_CHANGED): both ends up, and no IPv6 address, nor one to come —
      // the kernel would add a link-local one 1–2 s after a link comes up unless addrgenmode is none.
      const v6 = fs.readFileSync(`/proc/${chromiumPid}/net/if_inet6`, 'utf8').trim().split('\n');
      expect(v6.map((l) => l.trim().split(/\s+/).at(-1))).toEqual(['lo']);
      if (online) {
        const detail = execFileSync('nsenter', ['-t', String(chromiumPid), '-n', 'ip', '-d', '-o', 'link', 'show'], { encoding: 'utf8' });
        for (const dev of ['bd0', 'bd1']) {
          expect(
            detail.split('\n').find((l) => l.includes(`: ${dev}@`)),
            dev,
          ).toMatch(/ state UP .* addrgenmode none /);
        }
      }
    });
  });

  it('cannot reach cloud metadata: denied after resolution with a clear net error', async () => {
    await withSharedPage(async (page, _browser, id) => {
      const denied = await tenant.browsers.curl(id, { url: 'http://169.254.169.254/latest/meta-data/' }).then(
        () => ({ status: 0, error: {} as Record<string, unknown> }),
        (e: { status?: number; error?: Record<string, unknown> }) => ({ status: e.status ?? 0, error: e.error ?? {} }),
      );
      expect(denied.error).toMatchObject({ net_error_name: 'net::ERR_NETWORK_ACCESS_DENIED' });
      const res = await page.goto('http://169.254.169.254/latest/meta-data/');
      expect(res?.status()).toBe(403);
      expect(res?.headers()['x-kernel-proxy-error']).toBe('network_policy_denied');
    });
  });
});

describe('egress deny list of the operator', () => {
  it('refuses a denied range by address and by name (resolved by the engine), also for TLS tunnels', async () => {
    const strict = await startTestEngine({ egressDeny: ['127.0.0.0/8', '::1/128'] });
    try {
      const s = await strict.client.browsers.create({ headless: true });
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      const page = browser.contexts()[0].pages()[0];
      const port = new URL(web.url).port;
      for (const host of ['127.0.0.1', 'localhost']) {
        const res = await page.goto(`http://${host}:${port}/page`);
        expect(res?.status(), host).toBe(403);
        expect(await page.title(), host).not.toBe('page');
      }
      const tls = await page.goto(`https://localhost:${port}/page`).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(tls).toMatch(/ERR_TUNNEL_CONNECTION_FAILED/);
      await browser.close();
      await strict.client.browsers.deleteByID(s.session_id);
    } finally {
      await strict.stop();
    }
    // Control: the default policy reaches the same server.
    await withSharedPage(async (page) => {
      await page.goto(`${web.url}/page`);
      expect(await page.title()).toBe('page');
    });
  });
});

describe('the engine dies', () => {
  // The engine in a process of its own (the helper that runs the server CLI, shared with the other
  // tests that kill or crash an engine) plus a headful and a headless browser: past vitest's 60 s
  // on a loaded 2-core machine (it timed out there with and without the shared session above).
  it('takes every jailed browser with it on kill -9', async () => {
    const e = await startEngineProcess();
    try {
      const a = await e.guard(e.client.browsers.create({ headless: true }));
      const b = await e.guard(e.client.browsers.create({ headless: false }));
      const marker = path.join(e.dataDir, 'sessions');
      const before = withMarker(marker);
      expect(before.length).toBeGreaterThan(1);
      const jailed = [...new Set(before.flatMap((pid) => descendants(pid)))];
      expect(jailed.length).toBeGreaterThan(before.length);
      void a;
      void b;
      e.proc.kill('SIGKILL');
      await waitFor(() => jailed.every((pid) => !alive(pid)), 15_000, 'every jailed process gone');
      expect(withMarker(marker)).toEqual([]);
    } finally {
      e.proc.kill('SIGKILL');
      // The killed engine's session disks stay mounted until a next start's recovery (none here).
      const sessions = path.join(e.dataDir, 'sessions');
      for (const id of fs.existsSync(sessions) ? fs.readdirSync(sessions) : []) await unmountLeftover(path.join(sessions, id));
      await e.stop();
    }
  }, 180_000);
});
