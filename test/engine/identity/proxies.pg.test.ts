import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startEchoServer, startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';

let t: TestEngine;
let open: TestProxy;
let authed: TestProxy;
let echo: Awaited<ReturnType<typeof startEchoServer>>;

beforeAll(async () => {
  open = await startTestProxy();
  authed = await startTestProxy({ username: 'pu', password: 'pp-secret' });
  echo = await startEchoServer();
  t = await startTestEngine({
    identity: {
      proxyCheckUrl: `${echo.url}/ip`,
      proxyProviders: {
        datacenter: { countries: { DE: `http://pu:pp-secret@127.0.0.1:${authed.port}` } },
        residential: `http://user-{country}:pp-secret@127.0.0.1:${authed.port}`,
      },
      proxyTimeoutMs: 5000,
    },
  });
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([open?.close(), authed?.close(), echo?.close()]);
});

describe('proxies', () => {
  it('creates custom proxies without ever returning the password, lists, renames and soft-deletes', async () => {
    const p = await t.client.proxies.create({
      type: 'custom',
      name: ' office ',
      config: { host: '127.0.0.1', port: authed.port, username: 'pu', password: 'pp-secret' },
      bypass_hosts: ['*.internal.test'],
    });
    expect(p).toMatchObject({
      type: 'custom',
      name: 'office',
      protocol: 'http',
      bypass_hosts: ['*.internal.test'],
      config: { host: '127.0.0.1', port: authed.port, username: 'pu', has_password: true },
    });
    expect(JSON.stringify(p)).not.toContain('pp-secret');
    if (!process.env.BROWSERDECK_TEST_DATABASE_URL) {
      const db = new Database(path.join(t.dataDir, 'browserdeck.sqlite'), { readonly: true });
      expect(JSON.stringify(db.prepare('select * from proxies where id = ?').get(p.id!))).not.toContain('pp-secret');
      db.close();
    }
    const q = await t.client.proxies.create({ type: 'custom', name: 'office', config: { host: 'proxy.example.test', port: 3128 } });
    expect(q.config).toMatchObject({ has_password: false });

    expect((await t.client.proxies.list({ name: 'office' })).items.map((x) => x.id)).toEqual([p.id!, q.id!]);
    expect((await t.client.proxies.list({ query: 'example' })).items.map((x) => x.id)).toEqual([q.id!]);
    expect((await t.client.proxies.list({ query: p.id! })).items.map((x) => x.id)).toEqual([p.id!]);
    const pages = [];
    for await (const x of t.client.proxies.list({ limit: 1 })) pages.push(x.id);
    expect(pages).toEqual(expect.arrayContaining([p.id!, q.id!]));

    const renamed = await t.client.proxies.update(q.id!, { name: '  office  ' });
    expect(renamed.name).toBe('office');
    await t.client.proxies.delete(q.id!);
    await expect(t.client.proxies.retrieve(q.id!)).rejects.toMatchObject({ status: 404 });
    expect((await t.client.proxies.list({ name: 'office' })).items.map((x) => x.id)).toEqual([p.id!]);
  });

  it('answers 422 for managed types without a configured provider, 400 for bad config', async () => {
    await expect(t.client.proxies.create({ type: 'isp' })).rejects.toMatchObject({ status: 422, error: { code: 'proxy_provider_not_configured' } });
    await expect(t.client.proxies.create({ type: 'datacenter' })).rejects.toMatchObject({ status: 422 }); // only DE configured; default is US
    const dc = await t.client.proxies.create({ type: 'datacenter', config: { country: 'de' } });
    expect(dc.config).toEqual({ country: 'DE' });
    for (const body of [
      { type: 'custom', config: { host: '127.0.0.1' } },
      { type: 'custom', config: { host: 'bad host', port: 80 } },
      { type: 'custom', config: { host: 'h.test', port: 70000 } },
      { type: 'residential', config: { city: 'x' } },
      { type: 'nope' },
      { type: 'custom', config: { host: 'h.test', port: 80 }, bypass_hosts: ['a;b'] },
    ]) {
      const res = await t.api('/proxies', { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('checks custom proxies through the proxy: available with auth, unavailable with a wrong password or a dead proxy', async () => {
    const good = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: authed.port, username: 'pu', password: 'pp-secret' } });
    const before = authed.seen.length;
    const checked = await t.client.proxies.check(good.id!);
    expect(checked).toMatchObject({ status: 'available', ip_address: '127.0.0.1' });
    expect(checked.last_checked).toBeDefined();
    expect(authed.seen.slice(before).some((s) => s.method === 'CONNECT' && s.target === `127.0.0.1:${echo.port}` && s.authorized)).toBe(true);
    expect((await t.client.proxies.retrieve(good.id!)).status).toBe('available');

    const wrong = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: authed.port, username: 'pu', password: 'wrong' } });
    const refused = (await t.client.proxies.check(wrong.id!)) as { status?: string; status_reason?: string };
    expect(refused.status).toBe('unavailable');
    // Why it failed is kept (an engine field), never with the password in it.
    expect(refused.status_reason).toMatch(/\w/);
    expect(refused.status_reason).not.toContain('wrong');
    expect(checked).not.toHaveProperty('status_reason');

    const deadProxy = await startTestProxy();
    const dead = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: deadProxy.port } });
    await deadProxy.close();
    expect(await t.client.proxies.check(dead.id!)).toMatchObject({ status: 'unavailable' });
    expect(await t.client.proxies.retrieve(dead.id!)).toMatchObject({
      status: 'unavailable',
      status_reason: expect.stringMatching(/ECONNREFUSED|refused|connect/i),
    });
  });

  it('a check with url reports on that target without changing the stored status', async () => {
    const p = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: open.port } });
    expect((await t.client.proxies.check(p.id!)).status).toBe('available');
    const failing = await t.client.proxies.check(p.id!, { url: `${echo.url}/fail` });
    expect(failing.status).toBe('unavailable');
    expect(open.targets()).toContain(`127.0.0.1:${echo.port}`);
    expect((await t.client.proxies.retrieve(p.id!)).status).toBe('available');
    const res = await t.api(`/proxies/${p.id!}/check`, { method: 'POST', json: { url: 'ftp://example.test/' } });
    expect(res.status).toBe(400);
    const empty = await t.api(`/proxies/${p.id!}/check`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
  });

  it('checks residential proxies by configuration and connectivity of the provider', async () => {
    const r = await t.client.proxies.create({ type: 'residential', config: { country: 'US', city: 'sanfrancisco' } });
    const before = authed.seen.length;
    expect(await t.client.proxies.check(r.id!)).toMatchObject({ status: 'available', ip_address: '127.0.0.1' });
    expect(authed.seen.length).toBe(before); // connectivity only: no request through it
  });
});
