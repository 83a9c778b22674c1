/**
 * `/browsers` through the official client against real Chromium: create/retrieve/list/update/
 * delete, list filters (status, query, tags, pagination), options refused with clear 4xx, and
 * the session JWT's scope (only its own session's sub-routes; forged/expired refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { chromium } from 'playwright-core';
import { processesWith, sessionDirsLeft, waitFor } from '../../helpers/chromium-web.js';
import type { BrowserCreateResponse } from '@onkernel/sdk/resources/browsers/browsers';

let te: TestEngine;

beforeAll(async () => {
  te = await startTestEngine();
});

afterAll(async () => {
  await te.stop();
  expect(processesWith(te.dataDir)).toEqual([]);
});

function jwtOf(s: { cdp_ws_url: string }): string {
  return new URL(s.cdp_ws_url).searchParams.get('jwt')!;
}

describe('browsers API', () => {
  it('creates, retrieves, updates, lists and deletes a session', async () => {
    const created = await te.client.browsers.create({
      headless: true,
      name: 'api-one',
      tags: { team: 'backend', env: 'test' },
      timeout_seconds: 120,
      viewport: { width: 1024, height: 768 },
    });
    expect(created.session_id).toMatch(/^[a-z0-9]+$/);
    expect(created.headless).toBe(true);
    expect(created.stealth).toBe(false);
    expect(created.timeout_seconds).toBe(120);
    expect(created.name).toBe('api-one');
    expect(created.tags).toEqual({ team: 'backend', env: 'test' });
    expect(created.viewport).toEqual({ width: 1024, height: 768 });
    expect(created.base_url).toBe(`${te.url}/browsers/${created.session_id}`);
    expect(created.cdp_ws_url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/browsers/${created.session_id}/cdp\\?jwt=`));
    expect(created.webdriver_ws_url).toMatch(new RegExp(`/browsers/${created.session_id}/webdriver\\?jwt=`));
    expect(created.telemetry?.browser?.control?.enabled).toBe(true);
    expect(created.telemetry?.browser?.console?.enabled).toBe(false);
    expect(typeof created.usage?.uptime_ms).toBe('number');

    const byName = await te.client.browsers.retrieve('api-one');
    expect(byName.session_id).toBe(created.session_id);

    const updated = await te.client.browsers.update(created.session_id, {
      name: 'api-renamed',
      tags: { team: 'frontend' },
      telemetry: { browser: { console: { enabled: true } } },
    });
    expect(updated.name).toBe('api-renamed');
    expect(updated.tags).toEqual({ team: 'frontend' });
    expect(updated.telemetry?.browser?.console?.enabled).toBe(true);
    expect(updated.telemetry?.browser?.control?.enabled).toBe(true);

    const browser = await chromium.connectOverCDP(created.cdp_ws_url);
    const page = browser.contexts()[0].pages()[0];
    expect(await page.evaluate(() => [window.outerWidth || window.innerWidth, screen.width, screen.height])).toEqual([1024, 1024, 768]);
    const resized = await te.client.browsers.update(created.session_id, { viewport: { width: 800, height: 600 } });
    expect(resized.viewport).toEqual({ width: 800, height: 600 });
    await waitFor(async () => (await page.evaluate(() => window.innerWidth)) === 800, 10_000, 'window resized');
    await browser.close();

    await te.client.browsers.deleteByID(created.session_id);
    await expect(te.client.browsers.retrieve(created.session_id)).rejects.toMatchObject({ status: 404 });
    const deleted = await te.client.browsers.retrieve(created.session_id, { include_deleted: true });
    expect(deleted.deleted_at).toBeTruthy();
    // The delete answered once the session ended; its browser and directories go in the background.
    await expect.poll(() => sessionDirsLeft(te.dataDir), { timeout: 30_000 }).toEqual([]);
    await expect.poll(() => processesWith(path.join(te.dataDir, 'sessions', created.session_id)), { timeout: 30_000 }).toEqual([]);
    // A test engine runs with `standby: 0` (test/helpers/engine.ts): no standby browser is
    // launched or reported, and once the session is gone nothing of the engine runs.
    const health = (await (await fetch(`${te.url}/healthz`)).json()) as { standby: { enabled: boolean; ready: number; launching: number } };
    expect(health.standby).toMatchObject({ enabled: false, ready: 0, launching: 0 });
    expect(te.engine.services.sessions.standby.readyIds()).toEqual([]);
    await expect.poll(() => processesWith(te.dataDir), { timeout: 30_000 }).toEqual([]);
  });

  it('keeps names unique among active sessions and frees them on delete', async () => {
    const s = await te.client.browsers.create({ headless: true, name: 'unique-name' });
    const res = await te.api('/browsers', { method: 'POST', json: { headless: true, name: 'unique-name' } });
    expect(res.status).toBe(409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    await te.client.browsers.deleteByID('unique-name');
    const again = await te.client.browsers.create({ headless: true, name: 'unique-name' });
    expect(again.session_id).not.toBe(s.session_id);
    await te.client.browsers.deleteByID(again.session_id);
  });

  it('refuses options it cannot honour with a clear 4xx, never ignoring them', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ chrome_policy: { 'not a policy!': true } }, 400, 'invalid_request'],
      [{ extensions: [{ name: 'no-such-extension' }] }, 404, 'extension_not_found'],
      [{ extensions: [{ id: 'a', name: 'b' }] }, 400, 'invalid_request'],
      [{ viewport: { width: 1024, height: 768, refresh_rate: 240 } }, 422, 'unsupported_refresh_rate'],
      // Width/height bounds are in the schema now; the answer stays the domain's 400 invalid_request.
      [{ viewport: { width: 100, height: 768 } }, 400, 'invalid_request'],
      [{ viewport: { width: 1024, height: 5000 } }, 400, 'invalid_request'],
      [{ timeout_seconds: 5 }, 400, 'invalid_request'],
      [{ timeout_seconds: 300000 }, 400, 'invalid_request'],
      [{ start_url: 'file:///etc/passwd' }, 400, 'invalid_request'],
      [{ start_url: 'not a url' }, 400, 'invalid_request'],
      [{ name: 'bad name!' }, 400, 'invalid_request'],
      [{ tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'invalid_request'],
      [{ telemetry: { enabled: false, browser: { console: { enabled: true } } } }, 400, 'invalid_request'],
      // An unknown field alone is accepted and ignored (forward compatibility with newer SDKs),
      // but it does not hide a wrong known one.
      [{ unknown_option: true, headless: 'no' }, 400, 'invalid_request'],
      [{ headless: 'yes' }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await te.api('/browsers', { method: 'POST', json: body });
      expect({ body, status: res.status }).toEqual({ body, status });
      expect((await res.json()).code).toBe(code);
    }
    const gpu = await te.api('/browsers', { method: 'POST', json: { headless: true, gpu: true } });
    // This machine has no GPU render node; where one exists the session starts instead.
    if (gpu.status === 200) await te.client.browsers.deleteByID((await gpu.json()).session_id);
    else expect((await gpu.json()).code).toBe('gpu_unavailable');
    // A refused create leaves nothing; a started one is torn down behind DELETE's answer.
    await waitFor(() => sessionDirsLeft(te.dataDir).length === 0, 15_000, 'no session dir left').catch(() => {});
    expect(sessionDirsLeft(te.dataDir)).toEqual([]);
  });

  it('accepts an empty body (the client sends null as no bytes)', async () => {
    const res = await te.api('/browsers', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s.headless).toBe(false);
    expect(s.timeout_seconds).toBe(60);
    await te.client.browsers.deleteByID(s.session_id);
  });

  it('answers unknown sessions with 404 on every verb', async () => {
    await expect(te.client.browsers.retrieve('nope')).rejects.toMatchObject({ status: 404 });
    await expect(te.client.browsers.update('nope', { name: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(te.client.browsers.deleteByID('nope')).rejects.toMatchObject({ status: 404 });
  });

  // Two sessions for the list and the JWT cases (a launch is ~2 CPU-s), after the cases above
  // that find no session directory or process of the engine left. The list case expects exactly
  // these two active; the JWT case ends `a`, so it comes last.
  describe('with two sessions', () => {
    let a: BrowserCreateResponse;
    let b: BrowserCreateResponse;
    beforeAll(async () => {
      a = await te.client.browsers.create({ headless: true, name: 'list-a', tags: { team: 'backend', tier: 'gold' }, timeout_seconds: 300 });
      b = await te.client.browsers.create({ headless: true, name: 'list-b', tags: { team: 'backend' }, timeout_seconds: 300 });
    });
    afterAll(async () => {
      for (const s of [a, b]) if (s) await te.client.browsers.deleteByID(s.session_id).catch(() => {});
    });

    it('lists with status, query, tags and offset pagination', async () => {
      const c = await te.client.browsers.create({ headless: true, name: 'other-c', tags: { team: 'frontend' } });
      await te.client.browsers.deleteByID(c.session_id);

      const ids = (items: Array<{ session_id: string }>) => items.map((s) => s.session_id).sort();
      const active = await te.client.browsers.list();
      expect(ids(active.getPaginatedItems())).toEqual(ids([a, b]));
      const deleted = await te.client.browsers.list({ status: 'deleted' });
      expect(deleted.getPaginatedItems().map((s) => s.session_id)).toContain(c.session_id);
      expect(deleted.getPaginatedItems().every((s) => s.deleted_at)).toBe(true);
      const all = await te.client.browsers.list({ status: 'all' });
      expect(all.getPaginatedItems().map((s) => s.session_id)).toEqual(expect.arrayContaining([a.session_id, b.session_id, c.session_id]));
      const legacy = await te.client.browsers.list({ include_deleted: true });
      expect(legacy.getPaginatedItems().map((s) => s.session_id)).toContain(c.session_id);

      expect(ids((await te.client.browsers.list({ tags: { team: 'backend' } })).getPaginatedItems())).toEqual(ids([a, b]));
      expect(ids((await te.client.browsers.list({ tags: { team: 'backend', tier: 'gold' } })).getPaginatedItems())).toEqual([a.session_id]);
      expect((await te.client.browsers.list({ tags: { team: 'nobody' } })).getPaginatedItems()).toEqual([]);
      expect(ids((await te.client.browsers.list({ query: 'list-' })).getPaginatedItems())).toEqual(ids([a, b]));
      expect(ids((await te.client.browsers.list({ query: b.session_id })).getPaginatedItems())).toEqual([b.session_id]);

      const page1 = await te.client.browsers.list({ limit: 1 });
      expect(page1.getPaginatedItems()).toHaveLength(1);
      expect(page1.hasNextPage()).toBe(true);
      const seen: string[] = [];
      for await (const s of te.client.browsers.list({ limit: 1 })) seen.push(s.session_id);
      expect(seen.sort()).toEqual(ids([a, b]));

      const bad = await te.api('/browsers?limit=0');
      expect(bad.status).toBe(400);
      expect((await te.api('/browsers?offset=-1')).status).toBe(400);
      expect((await te.api('/browsers?status=zombie')).status).toBe(400);
    });

    it('scopes a session JWT to its own session routes and refuses forged or expired tokens', async () => {
      const [one, two] = [a, b];
      const jwt = jwtOf(one);
      const get = (p: string) => fetch(te.url + p);
      expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=${jwt}`)).status).toBe(200);
      // Never for another session, never outside /browsers/{id}/…
      expect((await get(`/browsers/${two.session_id}/cdp/json/version?jwt=${jwt}`)).status).toBe(403);
      expect((await get(`/browsers/${one.session_id}?jwt=${jwt}`)).status).toBe(401);
      expect((await get(`/browsers?jwt=${jwt}`)).status).toBe(401);
      expect((await get(`/org/projects?jwt=${jwt}`)).status).toBe(401);
      // Forged: right claims, wrong key.
      const forged = await new SignJWT({ org: 'x', project: 'y' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(one.session_id)
        .setIssuer('browserdeck')
        .setExpirationTime('1h')
        .sign(new Uint8Array(32));
      expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=${forged}`)).status).toBe(401);
      expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=garbage`)).status).toBe(401);
      // Expired: signed with the engine's real key, but in the past.
      {
        const secret = (
          await te.engine.context.db.selectFrom('engine_secrets').select('value').where('name', '=', 'session_jwt_hs256').executeTakeFirstOrThrow()
        ).value;
        const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
        const key = Buffer.from(secret, 'base64url');
        const valid = await new SignJWT({ org: claims.org, project: claims.project })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(one.session_id)
          .setIssuer('browserdeck')
          .setExpirationTime('1h')
          .sign(key);
        expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=${valid}`)).status).toBe(200);
        const expired = await new SignJWT({ org: claims.org, project: claims.project })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(one.session_id)
          .setIssuer('browserdeck')
          .setIssuedAt(1_000_000)
          .setExpirationTime(1_000_060)
          .sign(key);
        expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=${expired}`)).status).toBe(401);
      }
      // The JWT of a deleted session no longer reaches anything.
      await te.client.browsers.deleteByID(one.session_id);
      expect((await get(`/browsers/${one.session_id}/cdp/json/version?jwt=${jwt}`)).status).toBe(404);
    });
  });
});
