/**
 * Connections against real engines: the local engine plus a remote one added with its key
 * (checked by the server first), persisted without the key, activated, health reported
 * down when the remote stops, removed with its vault entry.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections, LOCAL_ID, normalizeServerUrl } from '../../src/main/connections.js';
import { CredentialVault } from '../../src/main/credential-vault.js';
import { checkHealth, verifyKey } from '../../src/main/server-probe.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { fakeCipher } from './fake-cipher.js';
import type { ConnectionInfo } from '../../src/shared/ipc/contract.js';

let local: TestEngine;
let remote: TestEngine;
let dir: string;
const cipher = fakeCipher();

beforeAll(async () => {
  [local, remote] = await Promise.all([startTestEngine(), startTestEngine()]);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-conn-'));
});
afterAll(async () => {
  await Promise.all([local?.stop(), remote?.stop()]);
  await fs.rm(dir, { recursive: true, force: true });
});

function make(events: ConnectionInfo[][] = []): Connections {
  return new Connections({
    file: path.join(dir, 'connections.json'),
    vault: new CredentialVault(cipher, path.join(dir, 'credentials.json')),
    local: () => ({ url: local.url, apiKey: local.adminKey }),
    checkHealth,
    verifyKey,
    onChange: (l) => events.push(l),
  });
}

describe('connections', () => {
  it('normalizes server URLs and rejects unusable ones', () => {
    expect(normalizeServerUrl(' https://deck.example.com/ ')).toBe('https://deck.example.com');
    expect(() => normalizeServerUrl('ftp://x')).toThrow(/http/);
    expect(() => normalizeServerUrl('https://user:pw@x')).toThrow(/API key/);
    expect(() => normalizeServerUrl('https://x/?a=1')).toThrow(/query/);
    expect(() => normalizeServerUrl('nope')).toThrow(/valid URL/);
  });

  it('adds a remote after the server accepts its key, persists it without the key, switches and removes', async () => {
    const events: ConnectionInfo[][] = [];
    const conns = make(events);
    await conns.load();
    expect(conns.list()).toEqual([expect.objectContaining({ id: LOCAL_ID, kind: 'local', active: true, maskedKey: null })]);
    expect(await conns.activeTarget()).toEqual({ id: LOCAL_ID, url: local.url, apiKey: local.adminKey });

    await expect(conns.add({ name: 'remote', url: remote.url, apiKey: 'bdk_wrong-key-000000' })).rejects.toThrow(/invalid or expired API key/);
    const added = await conns.add({ name: 'remote', url: remote.url + '/', apiKey: remote.adminKey });
    expect(added).toMatchObject({ kind: 'remote', url: remote.url, active: false });
    expect(added.maskedKey).not.toBe(remote.adminKey);
    expect(remote.adminKey.endsWith(added.maskedKey!.slice(-4))).toBe(true);
    for (const f of ['connections.json', 'credentials.json']) expect(await fs.readFile(path.join(dir, f), 'utf8')).not.toContain(remote.adminKey);
    expect(JSON.stringify(conns.list())).not.toContain(remote.adminKey);
    expect(events.length).toBeGreaterThan(0);

    // A fresh instance (next app start) sees the same connections and can use the key.
    const again = make();
    await again.load();
    await again.activate(added.id);
    expect(await again.activeTarget()).toEqual({ id: added.id, url: remote.url, apiKey: remote.adminKey });
    const reloaded = make();
    await reloaded.load();
    expect(reloaded.list().find((c) => c.active)?.id).toBe(added.id);

    expect((await reloaded.check(added.id)).health).toBe('ok');
    expect((await reloaded.check(LOCAL_ID)).health).toBe('ok');

    await reloaded.remove(added.id);
    expect(reloaded.list().map((c) => c.id)).toEqual([LOCAL_ID]);
    expect((await reloaded.activeTarget()).id).toBe(LOCAL_ID);
    await expect(reloaded.remove(LOCAL_ID)).rejects.toThrow(/cannot be removed/);
    expect(await new CredentialVault(cipher, path.join(dir, 'credentials.json')).has(added.id)).toBe(false);
  });

  it('reports a stopped server as down with the reason', async () => {
    const extra = await startTestEngine();
    const events: ConnectionInfo[][] = [];
    const conns = make(events);
    await conns.load();
    const c = await conns.add({ name: 'short-lived', url: extra.url, apiKey: extra.adminKey });
    await extra.stop();
    const checked = await conns.check(c.id);
    expect(checked.health).toBe('down');
    expect(checked.healthMessage).toBeTruthy();
    expect(events.at(-1)?.find((x) => x.id === c.id)?.health).toBe('down');
    await conns.remove(c.id);
  });
});
