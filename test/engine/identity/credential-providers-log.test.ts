/**
 * The engine's own log (pino, at trace level) never carries a provider token: every provider
 * route is called, including failures and a login flow that fails on its provider. pino writes
 * to fd 1 through sonic-boom (fs.write / fs.writeSync); the test records those writes. Request
 * logging is off in the engine, so this proves what is logged lacks the token, not that much is.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';
import { closedPort, fakeServiceAccountToken } from './onepassword-fixtures.js';

let t: TestEngine;
let site: LoginSite;
const written: string[] = [];
const realWriteSync = fs.writeSync;
const realWrite = fs.write;
beforeAll(async () => {
  (fs as { writeSync: unknown }).writeSync = function (fd: number, data: unknown, ...rest: unknown[]) {
    if (fd === 1 || fd === 2) written.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8'));
    return (realWriteSync as (...a: unknown[]) => number).call(fs, fd, data, ...rest);
  };
  (fs as { write: unknown }).write = function (fd: number, data: unknown, ...rest: unknown[]) {
    if (fd === 1 || fd === 2) written.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8'));
    return (realWrite as (...a: unknown[]) => void).call(fs, fd, data, ...rest);
  };
  site = await startLoginSite({ 'ann@example.test': { password: 'correct horse' } });
  t = await startTestEngine({ logLevel: 'trace', print: (line) => written.push(line), identity: { authFlowTtlSeconds: 120 } });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
  (fs as { writeSync: unknown }).writeSync = realWriteSync;
  (fs as { write: unknown }).write = realWrite;
});

describe('credential provider tokens in the engine log', () => {
  it('are never written, across create, patch, list, test, items and a failing login flow', async () => {
    const port = await closedPort();
    const token = fakeServiceAccountToken(`127.0.0.1:${port}`);
    const token2 = fakeServiceAccountToken(`127.0.0.1:${port}`);
    const p = await t.client.credentialProviders.create({ token, name: 'logged-1p', provider_type: 'onepassword' });
    await t.client.credentialProviders.update(p.id, { token: token2 });
    await t.client.credentialProviders.list({ query: 'logged' });
    expect((await t.client.credentialProviders.test(p.id)).success).toBe(false);
    await t.client.credentialProviders.listItems(p.id).catch(() => {});
    await t.api('/org/credential_providers', { method: 'POST', json: { token, name: 'logged-1p', provider_type: 'onepassword' } }); // 409
    await t.api('/org/credential_providers', { method: 'POST', json: { token, name: 'x', provider_type: 'nope' } }); // 400
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'log-profile',
      login_url: site.loginUrl,
      credential: { provider: 'logged-1p', path: 'Private/Example' },
      health_checks: false,
    });
    await t.client.auth.connections.login(c.id);
    const end = await pollUntil(
      'flow end',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.flow_status !== 'IN_PROGRESS' && x.flow_status !== null,
    );
    expect(end.error_code).toBe('credential_provider_unavailable');

    const log = written.join('');
    expect(log).toMatch(/"level":(10|20|30)/); // the log was captured at all
    for (const secret of [token, token2, token.slice(4, 40), token2.slice(4, 40)]) expect(log).not.toContain(secret);
  });
});
