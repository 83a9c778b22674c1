/**
 * What a create's plan takes is owned by the create's scope, in the order it was taken, and a
 * create that does not go through releases it newest first by closing that scope — no hand-written
 * cleanup. Fakes stand in for the proxy and profile services; the scope is the real one.
 */
import { describe, expect, it } from 'vitest';
import { planCreate } from './session-create.js';
import { SessionScope } from '../../runtime/session/session-scope.js';
import type { ProfileService, ProxyHooks, SessionProxy } from './session-hooks.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import type { AuthContext } from '../org/auth-context.js';
import type { ProfileBinding } from '../profiles/profile-binding.js';

const auth = { orgId: 'o1', projectId: 'p1' } as AuthContext;

function fakes(opts: { profileFails?: boolean } = {}) {
  const released: string[] = [];
  const asked: Array<{ jailed?: boolean }> = [];
  const proxies = {
    resolve: async (_a: unknown, _p: unknown, o: { jailed?: boolean } = {}) => {
      asked.push(o);
      const proxy: SessionProxy = { id: 'px1', launchArgs: [], release: async () => void released.push('proxy forwarder') };
      return proxy;
    },
  } as unknown as ProxyHooks;
  const profiles = {
    attach: async () => {
      if (opts.profileFails) throw new Error('profile not found');
      const binding: Partial<ProfileBinding> = {
        profileId: 'pf1',
        finish: async (dir, o) => void released.push(`profile (${dir || 'no dir'}, save ${String(o?.save)})`),
      };
      return binding as ProfileBinding;
    },
  } as unknown as ProfileService;
  const extensions = {} as ExtensionService;
  return { released, asked, hooks: { profiles, proxies, extensions, region: 'local', jailed: true } };
}

describe('planCreate owns what it takes in the create scope', () => {
  it('a create that does not go through releases the profile binding, then the proxy forwarder', async () => {
    const { released, hooks } = fakes();
    const scope = new SessionScope({ id: 's1' });
    const plan = await planCreate(auth, { proxy_id: 'px1', profile: { id: 'pf1', save_changes: true } }, scope, hooks);
    expect(plan.proxyId).toBe('px1');
    expect(plan.profile?.profileId).toBe('pf1');
    expect(released).toEqual([]);
    await scope.close('insert failed');
    expect(released).toEqual(['profile (no dir, save false)', 'proxy forwarder']);
  });

  it('a profile that cannot be attached leaves the forwarder to the scope, released once it closes', async () => {
    const { released, hooks } = fakes({ profileFails: true });
    const scope = new SessionScope({ id: 's1' });
    await expect(planCreate(auth, { proxy_id: 'px1', profile: { id: 'nope' } }, scope, hooks)).rejects.toThrow('profile not found');
    await scope.close('create failed');
    expect(released).toEqual(['proxy forwarder']);
  });

  it('the proxy is resolved with the create’s one answer to whether the browser is jailed', async () => {
    const jailed = fakes();
    await planCreate(auth, { proxy_id: 'px1' }, new SessionScope({ id: 's1' }), jailed.hooks);
    const unjailed = fakes();
    await planCreate(auth, { proxy_id: 'px1' }, new SessionScope({ id: 's2' }), { ...unjailed.hooks, jailed: false });
    expect([jailed.asked[0].jailed, unjailed.asked[0].jailed]).toEqual([true, false]);
  });

  it('a later step saving the profile back goes first; the unsaved release is then a no-op of the binding', async () => {
    const { released, hooks } = fakes();
    const scope = new SessionScope({ id: 's1' });
    const plan = await planCreate(auth, { profile: { id: 'pf1', save_changes: true } }, scope, hooks);
    // What the runtime owns once the user-data-dir exists (session-runtime.ts restoreState).
    scope.defer('profile', () => plan.profile!.finish('/sessions/s1/user-data', { save: true }));
    await scope.close('deleted');
    expect(released[0]).toBe('profile (/sessions/s1/user-data, save true)');
  });
});
