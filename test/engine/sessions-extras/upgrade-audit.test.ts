/**
 * WebSocket upgrades to a session land in the audit log with the route template the router
 * matched and the credential the handler accepted: the CDP proxy with the session JWT
 * (`session:<id>`) and with a bearer key, a refused forged token (401, no identity), and the
 * live view, BiDi and process attach sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft } from '../../helpers/chromium-web.js';
import { auditTable, eventually, identityOf } from '../audit/audit-helpers.js';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t.stop();
  expect(processesWith(t.dataDir)).toEqual([]);
  expect(sessionDirsLeft(t.dataDir)).toEqual([]);
});

/** Opens a WebSocket, waits for the handshake (or its refusal) and closes it. */
function openAndClose(url: string, headers: Record<string, string> = {}): Promise<'open' | 'refused'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close(1000);
      ws.on('close', () => resolve('open'));
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      res.on('end', () => resolve('refused'));
    });
    ws.on('error', () => resolve('refused'));
  });
}

describe('audit of session WebSocket upgrades', () => {
  it('records route template and auth strategy for CDP, live view, BiDi and process attach upgrades', async () => {
    const admin = await identityOf(t, t.adminKey);
    const s = await t.client.browsers.create({ headless: true });
    const id = s.session_id;
    const cdp = new URL(s.cdp_ws_url);
    const wsBase = t.url.replace('http', 'ws');

    expect(await openAndClose(s.cdp_ws_url)).toBe('open');
    expect(await openAndClose(`${wsBase}/browsers/${id}/cdp?k=bearer`, { authorization: `Bearer ${t.adminKey}` })).toBe('open');
    expect(await openAndClose(`${wsBase}/browsers/${id}/cdp?jwt=forged.token.value`)).toBe('refused');
    expect(await openAndClose(`${wsBase}/browsers/${id}/live/ws${cdp.search}`)).toBe('open');
    expect(await openAndClose(s.webdriver_ws_url)).toBe('open');
    const sp = await t.client.browsers.process.spawn(id, { command: 'sleep', args: ['30'], allocate_tty: true, cols: 80, rows: 24 });
    expect(await openAndClose(`${wsBase}/browsers/${id}/process/${sp.process_id}/attach${cdp.search}`)).toBe('open');

    const rows = await eventually(t, async () => {
      // The upgrades are this session's only GET requests (the process spawn is a POST).
      const upgrades = (await auditTable(t)).filter((r) => r.path.startsWith(`/browsers/${id}/`) && r.method === 'GET');
      expect(upgrades).toHaveLength(6);
      return upgrades;
    });
    const cdpRows = rows.filter((r) => r.path.startsWith(`/browsers/${id}/cdp`));
    expect(cdpRows.find((r) => r.path.includes('jwt=REDACTED') && r.status === 101)).toMatchObject({
      route: '/browsers/:id/cdp',
      auth_strategy: 'session_jwt',
      user_id: `session:${id}`,
      service: 'browsers',
      method: 'GET',
    });
    expect(cdpRows.find((r) => r.path.includes('k=bearer'))).toMatchObject({
      route: '/browsers/:id/cdp',
      status: 101,
      auth_strategy: 'api_key',
      user_id: admin.userId,
      email: admin.email,
    });
    expect(cdpRows.find((r) => r.status === 401)).toMatchObject({ route: '/browsers/:id/cdp', auth_strategy: 'none', user_id: '' });
    expect(rows.find((r) => r.path.startsWith(`/browsers/${id}/live/ws`))).toMatchObject({
      route: '/browsers/:id/live/ws',
      status: 101,
      auth_strategy: 'session_jwt',
      user_id: `session:${id}`,
    });
    expect(rows.find((r) => r.path.startsWith(`/browsers/${id}/webdriver`))).toMatchObject({
      route: '/browsers/:id/webdriver',
      status: 101,
      auth_strategy: 'session_jwt',
      user_id: `session:${id}`,
    });
    expect(rows.find((r) => r.path.includes('/attach'))).toMatchObject({
      route: '/browsers/:id/process/:process_id/attach',
      status: 101,
      auth_strategy: 'session_jwt',
      user_id: `session:${id}`,
    });

    await t.client.browsers.deleteByID(id);
  });
});
