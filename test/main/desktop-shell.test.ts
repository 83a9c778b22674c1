/**
 * The desktop shell's main-process side with a real embedded engine (app-core.ts, no window):
 * the Settings channels through the validating IPC router — a bad port refused with its message,
 * a data dir another engine holds refused naming it, saved settings applied by a restart; the
 * tray's status (state, running sessions) following the engine through stop and start; and a
 * "Recording ready" notification from the change feed when a replay finishes. The notice rules
 * and the tray menu themselves are unit tests (src/main/desktop-notifications.test.ts,
 * src/main/tray-menu.test.ts).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppCore, type AppCore } from '../../src/main/app-core.js';
import { createInvokeRouter } from '../../src/main/ipc-router.js';
import type { DesktopNotice } from '../../src/main/desktop-notifications.js';
import type { EngineStatusInfo, IpcResult, SettingsView } from '../../src/shared/ipc/contract.js';
import { fakeCipher } from './fake-cipher.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let core: AppCore;
let userData: string;
let other: TestEngine;
const notices: DesktopNotice[] = [];
const statuses: EngineStatusInfo[] = [];
const frame = { url: 'file:///app/index.html', parent: null };
let dispatch: ReturnType<typeof createInvokeRouter>;

async function call<T>(channel: string, ...args: unknown[]): Promise<IpcResult<T>> {
  return (await dispatch(channel, frame, args)) as IpcResult<T>;
}
async function result<T>(channel: string, ...args: unknown[]): Promise<T> {
  const r = await call<T>(channel, ...args);
  if ('error' in r) throw new Error(`${channel}: ${r.error.message}`);
  return r.result;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  userData = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-desktop-shell-'));
  // Jails of a root engine pass through userData to its data dir (as in desktop-harness.ts).
  fs.chmodSync(userData, 0o711);
  core = createAppCore({
    userData,
    cipher: fakeCipher({ backend: 'basic_text' }),
    version: '0.0.0-test',
    platform: process.platform,
    engine: {},
    chooseSavePath: async () => null,
    openExternal: async () => {},
    openInspectorWindow: () => {},
    broadcast: () => {},
    notify: (n) => notices.push(n),
    onEngineStatus: (s) => statuses.push(s),
    healthPollMs: 60_000,
  });
  // No standby browsers: this file launches one browser, for the recording.
  fs.writeFileSync(path.join(userData, 'desktop-settings.json'), JSON.stringify({ standby: 0 }));
  await core.load();
  dispatch = createInvokeRouter(core.handlers, () => true);
  await core.startEngine();
  other = await startTestEngine();
}, 120_000);
afterAll(async () => {
  await core?.stop();
  await other?.stop();
  fs.rmSync(userData, { recursive: true, force: true });
});

describe('desktop shell: settings, tray status, notifications', () => {
  it('refuses a bad port and a data dir another engine holds, each with its message; nothing is saved', async () => {
    const view = await result<SettingsView>('settings:get');
    expect(view.settings).toMatchObject({ port: 0, dataDir: '', egressLoopback: true, standby: 0 });
    expect(view.defaultDataDir).toBe(path.join(userData, 'engine'));
    expect(view.engine).toMatchObject({ status: 'running', sessions: 0, dataDir: view.defaultDataDir });

    const base = { port: 0, dataDir: '', egressLoopback: true, standby: 0, standbyMemoryMb: null };
    expect(await call('settings:save', { ...base, port: '99999' })).toEqual({
      error: { name: 'SettingsError', message: 'port 99999 is not a TCP port: use a whole number from 1024 to 65535, or 0 for a free port at each start' },
    });
    // Taken by another program (here: the other engine).
    const taken = Number(new URL(other.url).port);
    expect(await call('settings:save', { ...base, port: taken })).toEqual({
      error: { name: 'SettingsError', message: `port ${taken} is in use by another program on this computer` },
    });
    expect(await call('settings:save', { ...base, dataDir: other.dataDir })).toEqual({
      error: { name: 'SettingsError', message: `${other.dataDir} is in use by another engine (pid ${process.pid}); stop it or choose another data dir` },
    });
    // The contract still holds: an unknown field never reaches the handler.
    expect(await call('settings:save', { ...base, host: '0.0.0.0' })).toMatchObject({ error: { name: 'ValidationError' } });
    expect((await result<SettingsView>('settings:get')).settings.port).toBe(0);
    expect(fs.existsSync(path.join(userData, 'desktop-settings.json'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(userData, 'desktop-settings.json'), 'utf8'))).toEqual({ standby: 0 });
  });

  it('applies saved settings at the restart it offers; the tray follows stop and start', async () => {
    const port = await freePort();
    const saved = await result<SettingsView>('settings:save', { port: String(port), dataDir: '', egressLoopback: false, standby: '0', standbyMemoryMb: '' });
    expect(saved.restartNeeded).toBe(true);
    expect(saved.settings).toEqual({ port, dataDir: '', egressLoopback: false, standby: 0, standbyMemoryMb: null });

    const restarted = await result<SettingsView>('engine:restart');
    expect(restarted.restartNeeded).toBe(false);
    expect(restarted.engine).toMatchObject({ status: 'running', url: `http://127.0.0.1:${port}` });
    expect(core.host.currentEngine()?.config.egressLoopback).toBe(false);
    // What the app's own API calls reach is the restarted engine.
    expect((await core.controlPlane.request({ method: 'GET', path: '/browsers' })).status).toBe(200);

    statuses.length = 0;
    await core.stopLocal();
    expect(statuses.map((s) => s.status)).toEqual(['stopping', 'stopped']);
    await core.startLocal();
    expect(statuses.map((s) => s.status)).toEqual(['stopping', 'stopped', 'starting', 'running']);
    expect(core.host.current()?.url).toBe(`http://127.0.0.1:${port}`);
  });

  it('counts running sessions for the tray and notifies once when a recording is ready', async () => {
    const req = (method: 'GET' | 'POST' | 'DELETE', p: string, body?: unknown) => core.controlPlane.request({ method, path: p, ...(body ? { body } : {}) });
    const { session_id } = (await req('POST', '/browsers', { headless: true })).body as { session_id: string };
    expect(statuses.at(-1)).toMatchObject({ status: 'running', sessions: 1 });
    expect(core.watch.status().sessions).toBe(1);

    const { replay_id } = (await req('POST', `/browsers/${session_id}/replays`, { framerate: 5 })).body as { replay_id: string };
    await new Promise((r) => setTimeout(r, 1500));
    await req('POST', `/browsers/${session_id}/replays/${replay_id}/stop`);
    await expect.poll(() => notices.length, { timeout: 60_000 }).toBeGreaterThan(0);
    await core.watch.idle();
    expect(notices).toEqual([
      {
        key: `replay:${replay_id}:ready`,
        title: 'Recording ready',
        body: `The replay of ${session_id} is ready to watch.`,
        route: `/sessions/${session_id}/replays`,
      },
    ]);

    await req('DELETE', `/browsers/${session_id}`);
    await expect.poll(() => core.watch.status().sessions, { timeout: 30_000 }).toBe(0);
    await core.watch.idle();
    // A deleted session is not news, nor is the same recording again.
    expect(notices).toHaveLength(1);
  });
});
