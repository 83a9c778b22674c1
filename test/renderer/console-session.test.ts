/**
 * Console sign-in over HTTP: the cookie is HttpOnly/SameSite=Strict and holds no key, counts
 * only with the X-Browserdeck-Console header, dies with sign-out and with its key, and bearer
 * keys keep working as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let te: TestEngine;
beforeAll(async () => {
  te = await startTestEngine();
});
afterAll(async () => {
  await te?.stop();
});

const H = { 'x-browserdeck-console': '1' };

async function signIn(apiKey: string): Promise<{ res: Response; cookie: string }> {
  const res = await fetch(te.url + '/console/session', {
    method: 'POST',
    headers: { ...H, 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  return { res, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] };
}

const get = (path: string, headers: Record<string, string>) => fetch(te.url + path, { headers });

describe('console session', () => {
  it('sets an HttpOnly SameSite=Strict session cookie that does not contain the key', async () => {
    const { res, cookie } = await signIn(te.adminKey);
    expect(res.status).toBe(200);
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/Max-Age|Expires/i);
    expect(set).not.toContain(te.adminKey);
    const body = (await res.json()) as { name: string; masked_key: string };
    expect(body.name).toBe('admin');
    expect(JSON.stringify(body)).not.toContain(te.adminKey);
    expect((await get('/org/projects', { ...H, cookie })).status).toBe(200);
    expect(((await (await get('/console/session', { ...H, cookie })).json()) as { name: string }).name).toBe('admin');
  });

  it('accepts the cookie only together with the console header (CSRF guard)', async () => {
    const { cookie } = await signIn(te.adminKey);
    const r = await get('/org/projects', { cookie });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { message: string }).message).toBeTruthy();
    expect((await get('/org/projects', { cookie, 'x-browserdeck-console': 'yes' })).status).toBe(401);
    expect(
      (
        await fetch(te.url + '/console/session', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: te.adminKey }),
        })
      ).status,
    ).toBe(400);
  });

  it('refuses wrong keys and malformed bodies with the Error object', async () => {
    const bad = await signIn('bdk_nope');
    expect(bad.res.status).toBe(401);
    expect(bad.cookie).toBe('');
    expect(((await bad.res.json()) as { code: string }).code).toBe('unauthorized');
    for (const body of ['{}', '{"api_key": 5}', '{"extra":1}', 'not json']) {
      const r = await fetch(te.url + '/console/session', { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body });
      expect(r.status, body).toBe(400);
      expect(((await r.json()) as { message: string }).message).toBeTruthy();
    }
    expect((await get('/org/projects', { ...H, cookie: 'bd_console=forged' })).status).toBe(401);
  });

  it('ends at sign-out and when the key is deleted', async () => {
    const a = await signIn(te.adminKey);
    const out = await fetch(te.url + '/console/session', { method: 'DELETE', headers: { ...H, cookie: a.cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await get('/org/projects', { ...H, cookie: a.cookie })).status).toBe(401);

    const created = await te.client.apiKeys.create({ name: 'console-temp' });
    const b = await signIn(created.key);
    expect((await get('/org/projects', { ...H, cookie: b.cookie })).status).toBe(200);
    await te.client.apiKeys.delete(created.id);
    const after = await get('/org/projects', { ...H, cookie: b.cookie });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { message: string }).message).toMatch(/sign in again/);
  });

  it('leaves bearer authentication untouched', async () => {
    expect((await te.api('/org/projects')).status).toBe(200);
    expect((await te.api('/org/projects', { headers: { ...H, cookie: 'bd_console=forged' } })).status).toBe(200);
  });
});
