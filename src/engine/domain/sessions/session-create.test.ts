/**
 * The create's option matrix (wire §3.6) on planCreate with fake profile, proxy and extension
 * services: what each option becomes in the launch inputs, and which are refused with which
 * Error object — without a browser. The integration files (test/engine/sessions/browsers-api,
 * kernel-newer-fields) keep one real-browser case per behaviour. What a failed create releases,
 * and in which order, is session-create-scope.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../org/auth-context.js';
import { planCreate, type CreateBody } from './session-create.js';
import type { ProfileBinding, ProfileService, ProxyHooks, SessionProxy } from './session-hooks.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import type { ExtensionRow } from '../extensions/extensions.js';
import type { ProxyRef } from './session-proxy-choice.js';
import { DEFAULT_VIEWPORT } from './session-options.js';
import { SessionScope } from '../../runtime/session/session-scope.js';

const auth = { orgId: 'org1', projectId: 'proj1' } as AuthContext;

/** Fakes that record what planCreate asked of them. */
function fakes(opts: { proxyThrows?: Error; profileThrows?: Error } = {}) {
  const calls = {
    proxies: [] as Array<{ proxy: ProxyRef | null; privateHosts?: readonly string[]; routes?: unknown }>,
    released: 0,
    profiles: [] as Array<{ selector: unknown; sessionId: string; scope: unknown }>,
    extensions: [] as Array<{ selectors: unknown; use?: boolean }>,
  };
  const proxies: ProxyHooks = {
    async resolve(_auth, proxy, o) {
      calls.proxies.push({ proxy, privateHosts: o?.privateHosts, routes: o?.routes });
      if (opts.proxyThrows) throw opts.proxyThrows;
      const id = proxy === null ? null : typeof proxy === 'string' ? proxy : `id-of-${proxy.name}`;
      const p: SessionProxy = {
        id,
        launchArgs: ['--proxy-server=http://127.0.0.1:1'],
        routes: o?.routes?.map((r) => ({ hosts: r.hosts, proxy: { id: r.proxy.id ?? `id-of-${r.proxy.name}` } })),
        release: async () => {
          calls.released++;
        },
      };
      return p;
    },
    switchProxy: async () => null,
  };
  const profiles = {
    async attach(scope, selector, sessionId) {
      calls.profiles.push({ selector, sessionId, scope });
      if (opts.profileThrows) throw opts.profileThrows;
      return { profileId: 'prof1', saveChanges: !!selector.save_changes } as ProfileBinding;
    },
  } as ProfileService;
  const extensions = {
    async resolve(_scope, selectors, o) {
      calls.extensions.push({ selectors, use: o?.use });
      return selectors.map((s, i) => ({ id: `ext${i}`, name: s.name ?? s.id }) as unknown as ExtensionRow);
    },
  } as ExtensionService;
  return { calls, hooks: { profiles, proxies, extensions, region: 'eu-west' } };
}

const plan = (body: CreateBody, f = fakes()) => planCreate(auth, body, new SessionScope({ id: 'sess1' }), { ...f.hooks, jailed: true });

/** The Error object a refused create carries (code, status and message). */
async function refusal(body: CreateBody, f = fakes()) {
  try {
    await plan(body, f);
  } catch (err) {
    const e = err as { code?: string; status?: number; message: string };
    return { code: e.code, status: e.status, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('planCreate: defaults', () => {
  it('an empty body is a headful, non-stealth 60 s session at the default viewport in the node region', async () => {
    const p = await plan({});
    expect(p.options).toEqual({
      headless: false,
      stealth: false,
      viewport: DEFAULT_VIEWPORT,
      kiosk_mode: false,
      gpu: false,
      region: 'eu-west',
      memory: '8GiB',
    });
    expect(p).toMatchObject({ name: null, tags: {}, timeoutSeconds: 60, invocationId: null, proxyId: null, extraArgs: [], extensions: [] });
    expect(p.profile).toBeUndefined();
    expect(p.proxy).toBeUndefined();
    expect(p.telemetry.browser?.control?.enabled).toBe(true);
    expect(p.telemetry.browser?.console?.enabled).toBe(false);
  });

  it('headless sessions report 1GiB of memory', async () => {
    expect((await plan({ headless: true })).options.memory).toBe('1GiB');
  });
});

describe('planCreate: options honoured', () => {
  it('keeps name, tags, timeout, viewport, kiosk, stealth, start_url and invocation as given', async () => {
    const p = await plan({
      headless: true,
      stealth: true,
      kiosk_mode: true,
      name: 'api-one',
      tags: { team: 'backend', env: 'test' },
      timeout_seconds: 120,
      viewport: { width: 1024, height: 768 },
      start_url: 'https://example.test/',
      invocation_id: 'inv1',
    });
    expect(p.options).toMatchObject({
      headless: true,
      stealth: true,
      kiosk_mode: true,
      viewport: { width: 1024, height: 768 },
      start_url: 'https://example.test/',
    });
    expect(p).toMatchObject({ name: 'api-one', tags: { team: 'backend', env: 'test' }, timeoutSeconds: 120, invocationId: 'inv1' });
  });

  it('memory: a headful session chooses it', async () => {
    expect((await plan({ headless: false, memory: '16GiB' })).options.memory).toBe('16GiB');
  });

  it('region: the node region is accepted', async () => {
    expect((await plan({ region: 'eu-west' })).options.region).toBe('eu-west');
  });

  it('telemetry categories are merged over the defaults; unknown categories are kept', async () => {
    const p = await plan({ telemetry: { browser: { console: { enabled: true }, platform: { enabled: true } } } as never });
    expect(p.telemetry.browser?.console?.enabled).toBe(true);
    expect(p.telemetry.browser?.control?.enabled).toBe(true);
    expect((p.telemetry.browser as Record<string, unknown>).platform).toEqual({ enabled: true });
  });

  it('location is normalized into overrides', async () => {
    expect((await plan({ location: { timezone: 'asia/tokyo', locale: 'iw-IL' } })).options.location).toEqual({ timezone: 'Asia/Tokyo', locale: 'he-IL' });
  });

  it('chrome_policy is kept for the managed policy file', async () => {
    expect((await plan({ chrome_policy: { URLBlocklist: ['example.com'] } })).options.chrome_policy).toEqual({ URLBlocklist: ['example.com'] });
  });

  it('typed proxy mode: no proxy resolved, the mode kept to be reported', async () => {
    const f = fakes();
    const p = await plan({ proxy: { mode: 'direct' } }, f);
    expect(p.options.proxy_mode).toBe('direct');
    expect(p.proxyId).toBeNull();
    expect(f.calls.proxies).toEqual([]);
  });

  it('a proxy by name, by id or by the deprecated proxy_id is resolved once with the default private hosts; its launch flags are added', async () => {
    for (const [body, asked, id] of [
      [{ proxy: { name: 'named-upstream' } }, { name: 'named-upstream' }, 'id-of-named-upstream'],
      [{ proxy: { id: 'p1' } }, 'p1', 'p1'],
      [{ proxy_id: 'p2' }, 'p2', 'p2'],
    ] as Array<[CreateBody, ProxyRef, string]>) {
      const f = fakes();
      const p = await plan(body, f);
      expect(f.calls.proxies).toHaveLength(1);
      expect(f.calls.proxies[0].proxy).toEqual(asked);
      expect(f.calls.proxies[0].privateHosts?.length).toBeGreaterThan(0);
      expect(p.proxyId).toBe(id);
      expect(p.extraArgs).toEqual(['--proxy-server=http://127.0.0.1:1']);
      expect(p.options.proxy_mode).toBeUndefined();
    }
  });

  it('network: private_hosts and allowed_hosts are kept; proxy_routes join by proxy id once resolved', async () => {
    const f = fakes();
    const p = await plan(
      {
        network: {
          private_hosts: ['intranet.test'],
          allowed_hosts: ['example.test'],
          proxy_routes: [{ hosts: ['*.shop.test'], proxy: { name: 'shop' } }],
        },
      },
      f,
    );
    expect(f.calls.proxies).toEqual([{ proxy: null, privateHosts: ['intranet.test'], routes: [{ hosts: ['*.shop.test'], proxy: { name: 'shop' } }] }]);
    expect(p.options.network).toEqual({
      private_hosts: ['intranet.test'],
      allowed_hosts: ['example.test'],
      proxy_routes: [{ hosts: ['*.shop.test'], proxy: { id: 'id-of-shop' } }],
    });
    expect(p.proxyId).toBeNull();
  });

  it('a profile is attached last, for this session, with save_changes reported', async () => {
    const f = fakes();
    const p = await plan({ profile: { name: 'Shopping-Account', save_changes: true } }, f);
    expect(f.calls.profiles).toEqual([
      { selector: { name: 'Shopping-Account', save_changes: true }, sessionId: 'sess1', scope: { orgId: 'org1', projectId: 'proj1' } },
    ]);
    expect(p.profile?.profileId).toBe('prof1');
    expect(p.options.profile_save_changes).toBe(true);
    expect((await plan({ profile: { id: 'x' } })).options.profile_save_changes).toBe(false);
    expect((await plan({})).options.profile_save_changes).toBeUndefined();
  });

  it('extensions are resolved in the caller project and marked in use', async () => {
    const f = fakes();
    const p = await plan({ extensions: [{ name: 'ad-blocker' }] }, f);
    expect(f.calls.extensions).toEqual([{ selectors: [{ name: 'ad-blocker' }], use: true }]);
    expect(p.extensions.map((e) => e.id)).toEqual(['ext0']);
  });
});

describe('planCreate: options refused with a clear 4xx, never ignored', () => {
  it.each<[string, CreateBody, number, string]>([
    ['a bad chrome policy name', { chrome_policy: { 'not a policy!': true } }, 400, 'invalid_request'],
    ['an extension given by both id and name', { extensions: [{ id: 'a', name: 'b' }] }, 400, 'invalid_request'],
    ['a refresh rate the screencast cannot deliver', { viewport: { width: 1024, height: 768, refresh_rate: 240 } }, 422, 'unsupported_refresh_rate'],
    ['a timeout below the minimum', { timeout_seconds: 5 }, 400, 'invalid_request'],
    ['a timeout above the maximum', { timeout_seconds: 300000 }, 400, 'invalid_request'],
    ['a file: start_url', { start_url: 'file:///etc/passwd' }, 400, 'invalid_request'],
    ['a start_url that is no URL', { start_url: 'not a url' }, 400, 'invalid_request'],
    ['a bad name', { name: 'bad name!' }, 400, 'invalid_request'],
    ['51 tags', { tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'invalid_request'],
    ['a category with telemetry off', { telemetry: { enabled: false, browser: { console: { enabled: true } } } as never }, 400, 'invalid_request'],
    ['another region', { region: 'us-east' }, 422, 'region_unavailable'],
    ['memory on a headless session', { headless: true, memory: '16GiB' }, 400, 'invalid_request'],
    ['memory with a GPU', { headless: false, memory: '8GiB', gpu: true }, 0, ''],
    ['an empty typed proxy', { proxy: {} }, 400, 'invalid_request'],
    ['a typed proxy with two of mode, id, name', { proxy: { mode: 'direct', id: 'x' } }, 400, 'invalid_request'],
    ['a typed proxy with proxy_id', { proxy: { mode: 'direct' }, proxy_id: 'x' }, 400, 'invalid_request'],
    ['an unsupported time zone', { location: { timezone: 'Nowhere/Else' } }, 400, 'invalid_browser_location'],
    ['an unsupported locale', { location: { locale: 'not a tag' } }, 400, 'invalid_browser_location'],
  ])('%s', async (_what, body, status, code) => {
    const r = await refusal(body);
    // With a GPU asked for, which refusal comes first depends on the machine (gpu_unavailable without a render node).
    if (status === 0) return expect(['invalid_request', 'gpu_unavailable']).toContain(r.code);
    expect({ status: r.status, code: r.code }).toEqual({ status, code });
  });

  it('refuses before resolving a proxy, attaching a profile or using an extension', async () => {
    const f = fakes();
    await refusal({ timeout_seconds: 5, proxy_id: 'p1', profile: { name: 'x' }, extensions: [{ name: 'e' }] }, f);
    expect(f.calls).toMatchObject({ proxies: [], profiles: [], extensions: [] });
  });
});
