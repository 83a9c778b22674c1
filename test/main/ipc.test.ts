/**
 * The IPC gate: only the app's own main frame may call; every payload is checked against the
 * contract before a handler runs; handlers' failures come back as the Error object. Also the
 * Electron adapter (with the mocked ipcMain): one handler per contract channel, streams over
 * a port refused for foreign frames.
 *
 * @own-process the mocked electron's ipcMain holds one handler per channel per process.
 */
import { ipcMain } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { appFrameCheck, createInvokeRouter, type InvokeHandlers } from '../../src/main/ipc-router.js';
import { registerIpc } from '../../src/main/ipc-main.js';
import { INVOKE_CHANNELS, STREAM_OPEN_CHANNEL } from '../../src/shared/ipc/channels.js';
import type { ControlPlane } from '../../src/main/control-plane.js';

const APP = 'file:///opt/Browserdeck/resources/app.asar/out/renderer/index.html';
const appFrame = { url: `${APP}#/sessions`, parent: null };

type Mocks = Record<string, ReturnType<typeof vi.fn>>;
function handlers(): InvokeHandlers {
  return Object.fromEntries(INVOKE_CHANNELS.map((c) => [c, vi.fn(async () => ({ ok: c }))])) as unknown as InvokeHandlers;
}
const mocks = (h: InvokeHandlers): Mocks => h as unknown as Mocks;

describe('IPC router', () => {
  const trusted = appFrameCheck(APP);

  it('trusts only the app main frame', () => {
    expect(trusted(appFrame)).toBe(true);
    expect(trusted({ url: APP, parent: { url: APP } })).toBe(false);
    expect(trusted({ url: 'file:///tmp/evil.html', parent: null })).toBe(false);
    expect(trusted({ url: 'https://example.com/', parent: null })).toBe(false);
    expect(trusted(null)).toBe(false);
    const dev = appFrameCheck('http://localhost:5173/');
    expect(dev({ url: 'http://localhost:5173/#/admin', parent: null })).toBe(true);
    expect(dev({ url: 'http://localhost:5174/', parent: null })).toBe(false);
  });

  it('refuses foreign frames before validating or running anything', async () => {
    const h = handlers();
    const dispatch = createInvokeRouter(h, trusted);
    for (const frame of [{ url: 'https://evil.example/', parent: null }, { url: APP, parent: {} }, undefined]) {
      const r = await dispatch('connections:list', frame, []);
      expect(r).toEqual({ error: expect.objectContaining({ name: 'ForbiddenSender' }) });
    }
    expect(mocks(h)['connections:list']).not.toHaveBeenCalled();
  });

  it('rejects payloads that do not match the contract', async () => {
    const h = handlers();
    const dispatch = createInvokeRouter(h, trusted);
    const bad: Array<[string, unknown[]]> = [
      ['no:such-channel', []],
      ['connections:list', [1]],
      ['connections:add', [{ name: 'x', url: 'file:///etc/passwd', apiKey: 'bdk_12345678' }]],
      ['connections:add', [{ name: 'x', url: 'https://a.example', apiKey: 'bdk_12345678', extra: 1 }]],
      ['connections:remove', [{ id: '../etc' }]],
      ['api:request', [{ method: 'TRACE', path: '/org/projects' }]],
      ['api:request', [{ method: 'GET', path: 'http://evil.example/x' }]],
      ['api:request', [{ method: 'GET', path: '/org/projects?x=1' }]],
      ['api:request', [{ method: 'GET', path: '/org\\projects' }]],
      ['api:request', [{ method: 'GET', path: '/org/projects', headers: { authorization: 'x' } }]],
      ['api:request', [{ method: 'GET', path: '/x', query: { a: { nested: 1 } } }]],
      ['api:download', [{ path: '/audit-logs/export/chunk', filename: '../../.bashrc' }]],
      ['api:binary', [{ method: 'POST', path: '/browsers/x/fs/upload', multipart: [{ name: 'f', filename: 'a.txt', data: 'not bytes' }] }]],
      ['api:binary', [{ method: 'POST', path: '/browsers/x/fs/upload', multipart: [{ name: 'f', data: new Uint8Array(1) }] }]],
      ['api:binary', [{ method: 'POST', path: '/browsers/x/fs/upload', multipart: [] }]],
      ['api:binary', [{ method: 'GET', path: '/browsers/x/fs/read_file', maxBytes: 0 }]],
      ['api:binary', [{ method: 'GET', path: '/browsers/x/fs/read_file', maxBytes: 1e12 }]],
      ['api:binary', [{ method: 'GET', path: 'https://evil.example/fs/read_file' }]],
      ['shell:open-external', [{ url: 'file:///etc/passwd' }]],
      ['shell:open-external', [{ url: 'javascript:alert(1)' }]],
    ];
    for (const [channel, args] of bad) {
      const r = await dispatch(channel, appFrame, args);
      expect(r, `${channel} ${JSON.stringify(args)}`).toEqual({ error: expect.objectContaining({ name: 'ValidationError', message: expect.any(String) }) });
    }
    for (const fn of Object.values(mocks(h))) expect(fn).not.toHaveBeenCalled();
  });

  it('runs valid calls and returns failures as the Error object', async () => {
    const h = handlers();
    mocks(h)['api:request'].mockRejectedValueOnce(Object.assign(new Error('project is not empty'), { name: 'ApiError' }));
    const dispatch = createInvokeRouter(h, trusted);
    expect(await dispatch('connections:list', appFrame, [])).toEqual({ result: { ok: 'connections:list' } });
    const req = {
      method: 'GET',
      path: '/browsers',
      query: { status: 'all', 'tags[team]': 'qa', limit: 20, include_deleted: true, exclude_method: ['GET', 'POST'] },
      projectId: 'p1',
    };
    expect(await dispatch('api:request', appFrame, [req])).toEqual({ error: { name: 'ApiError', message: 'project is not empty' } });
    expect(mocks(h)['api:request']).toHaveBeenCalledWith(req);
  });
});

describe('Electron IPC adapter', () => {
  it('registers every contract channel and routes through the gate', async () => {
    const h = handlers();
    const streams: unknown[] = [];
    const cp = { stream: (req: unknown) => (streams.push(req), { dispose() {} }) } as unknown as ControlPlane;
    const fake = ipcMain as unknown as {
      handlers: Map<string, (e: unknown, ...a: unknown[]) => Promise<unknown>>;
      listeners: Map<string, Set<(e: unknown, p: unknown) => void>>;
    };
    const dispose = registerIpc(h, cp, appFrameCheck(APP));
    try {
      expect([...fake.handlers.keys()].sort()).toEqual([...INVOKE_CHANNELS].sort());
      expect(await fake.handlers.get('app:info')!({ senderFrame: appFrame })).toEqual({ result: { ok: 'app:info' } });
      expect(await fake.handlers.get('app:info')!({ senderFrame: { url: 'https://evil.example/', parent: null } })).toMatchObject({
        error: { name: 'ForbiddenSender' },
      });

      const posted: unknown[] = [];
      let closed = false;
      const port = { postMessage: (m: unknown) => posted.push(m), close: () => (closed = true), on: () => {}, start: () => {} };
      const open = [...fake.listeners.get(STREAM_OPEN_CHANNEL)!][0];
      open({ senderFrame: { url: 'https://evil.example/', parent: null }, ports: [port] }, { path: '/browsers/x/telemetry/stream' });
      expect(posted).toEqual([{ type: 'end', error: expect.objectContaining({ name: 'ForbiddenSender' }) }]);
      expect(closed).toBe(true);
      open({ senderFrame: appFrame, ports: [port] }, { path: 'http://evil/' });
      expect(posted[1]).toMatchObject({ type: 'end', error: { name: 'ValidationError' } });
      open({ senderFrame: appFrame, ports: [port] }, { path: '/browsers/x/telemetry/stream', query: { replay: 'all' } });
      expect(streams).toEqual([{ path: '/browsers/x/telemetry/stream', query: { replay: 'all' } }]);
    } finally {
      dispose();
    }
    expect(fake.handlers.size).toBe(0);
  });
});
