/**
 * A custom proxy's `ca_bundle` (Kernel 0.85, spec kernel-api-after-0.84 §4) with a real
 * TLS-intercepting proxy (test/helpers/mitm-proxy.ts) in front of a local HTTPS site whose
 * certificate the same test CA signed: stored encrypted and never returned (`has_ca_bundle`);
 * a session using the proxy loads the site through it without certificate errors; the same
 * proxy without the bundle fails with a certificate error; a session without the proxy does not
 * trust the CA; a running session cannot switch to a proxy whose CA it was not launched with;
 * the proxy check trusts the bundle too.
 * Raw HTTP: SDK 0.84 does not know `ca_bundle`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { curlVia } from '../../helpers/browser-session.js';
import { createTestCa, startMitmProxy, startTlsOrigin, type MitmProxy, type TestCa } from '../../helpers/mitm-proxy.js';

type Json = Record<string, unknown>;
/** An answer as these tests read it: a session's id, a proxy's config, or the Error object's fields. */
type Body = Json & { session_id: string; config: { has_ca_bundle?: boolean } };
let t: TestEngine;
let ca: TestCa;
let mitm: MitmProxy;
let origin: Awaited<ReturnType<typeof startTlsOrigin>>;
const sessions: string[] = [];

beforeAll(async () => {
  ca = createTestCa();
  origin = await startTlsOrigin(ca);
  mitm = await startMitmProxy(ca, ca.certPem);
  t = await startTestEngine({ identity: { proxyTimeoutMs: 5000 } });
});
afterAll(async () => {
  for (const id of sessions) await t?.api(`/browsers/${id}`, { method: 'DELETE' });
  await t?.stop();
  await Promise.all([mitm?.close(), origin?.close()]);
  ca?.dispose();
});

async function call(method: string, path: string, json?: unknown): Promise<{ status: number; body: Body }> {
  const res = await t.api(path, { method, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Body };
}

async function session(body: Json): Promise<string> {
  const r = await call('POST', '/browsers', { headless: true, timeout_seconds: 120, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  sessions.push(r.body.session_id);
  return r.body.session_id;
}

describe('custom proxy ca_bundle', () => {
  it('is validated, stored and never returned: has_ca_bundle says whether there is one', async () => {
    const bad = await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port, ca_bundle: 'not a certificate' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', details: [{ code: 'invalid_field' }] });
    expect(bad.body.message).toMatch(/^config\.ca_bundle: must contain only PEM certificates/);
    const key = await call('POST', '/proxies', {
      type: 'custom',
      config: { host: '127.0.0.1', port: mitm.port, ca_bundle: `${ca.certPem}-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n` },
    });
    expect(key.status).toBe(400);
    expect(key.body.message).toMatch(/contains a PRIVATE KEY/);
    const managed = await call('POST', '/proxies', { type: 'datacenter', config: { ca_bundle: ca.certPem } });
    expect(managed.status).toBe(400);

    const made = await call('POST', '/proxies', {
      type: 'custom',
      name: 'mitm-trusted',
      config: { host: '127.0.0.1', port: mitm.port, ca_bundle: ca.certPem },
    });
    expect(made.status).toBe(200);
    expect(made.body.config).toEqual({ host: '127.0.0.1', port: mitm.port, has_password: false, has_ca_bundle: true });
    const got = await call('GET', `/proxies/${made.body.id}`);
    expect(got.body.config).toEqual(made.body.config);
    const listed = await call('GET', '/proxies');
    expect(JSON.stringify(listed.body)).not.toContain('BEGIN CERTIFICATE');
    const plain = await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port } });
    expect(plain.body.config.has_ca_bundle).toBe(false);
  });

  it("makes the proxy's sessions, and only them, trust the CA", async () => {
    const trusted = (await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port, ca_bundle: ca.certPem } })).body;
    const untrusted = (await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port } })).body;

    const withCa = await session({ proxy: { id: trusted.id } });
    expect(await curlVia(t, withCa, `${origin.url}/through-mitm`)).toEqual({ status: 200 });
    expect(mitm.forwarded).toContain(`https://127.0.0.1:${origin.port}/through-mitm`);
    expect(origin.hits).toContain('/through-mitm');

    // The same interception without the bundle: Chromium refuses the proxy's certificate.
    const withoutCa = await session({ proxy_id: untrusted.id });
    expect(await curlVia(t, withoutCa, `${origin.url}/no-bundle`)).toEqual({ netError: 'net::ERR_CERT_AUTHORITY_INVALID' });
    expect(origin.hits).not.toContain('/no-bundle');

    // Another session, no proxy: the site's own certificate (same CA) is not trusted there.
    const direct = await session({});
    expect(await curlVia(t, direct, `${origin.url}/direct`)).toEqual({ netError: 'net::ERR_CERT_AUTHORITY_INVALID' });
    expect(origin.hits).not.toContain('/direct');

    // A running browser cannot take a CA after launch: switching to that proxy is refused.
    const sw = await call('PATCH', `/browsers/${withoutCa}`, { proxy: { id: trusted.id } });
    expect(sw.status).toBe(422);
    expect(sw.body.code).toBe('proxy_ca_bundle_needs_new_session');
    // The other way round is fine (it already trusts that CA, and a proxy without one needs none).
    const back = await call('PATCH', `/browsers/${withCa}`, { proxy: { id: untrusted.id } });
    expect(back.status).toBe(200);
  });

  it('checks a proxy trusting its bundle (POST /proxies/{id}/check), as its sessions do', async () => {
    const trusted = (await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port, ca_bundle: ca.certPem } })).body;
    const untrusted = (await call('POST', '/proxies', { type: 'custom', config: { host: '127.0.0.1', port: mitm.port } })).body;
    const ok = await call('POST', `/proxies/${trusted.id}/check`, { url: `${origin.url}/check-trusted` });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('available');
    expect(origin.hits).toContain('/check-trusted');
    const refused = await call('POST', `/proxies/${untrusted.id}/check`, { url: `${origin.url}/check-untrusted` });
    expect(refused.status).toBe(200);
    expect(refused.body.status).toBe('unavailable');
    expect(origin.hits).not.toContain('/check-untrusted');
  });
});
