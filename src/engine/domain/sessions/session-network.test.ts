import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_HOSTS } from '../../runtime/proxy-forwarder/private-hosts.js';
import { checkNetwork, checkNetworkUpdate, checkPoolNetwork, effectivePrivateHosts } from './session-network.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('checkNetwork', () => {
  it('means "none" for an omitted network, {} and one without private_hosts', () => {
    expect(checkNetwork(undefined)).toBeUndefined();
    expect(checkNetwork({})).toBeUndefined();
  });

  it('keeps a valid private_hosts list (a copy), the empty list included', () => {
    const list = ['wiki.corp', '10.1.0.0/16'];
    const out = checkNetwork({ private_hosts: list });
    expect(out).toEqual({ private_hosts: list });
    expect(out!.private_hosts).not.toBe(list);
    expect(checkNetwork({ private_hosts: [] })).toEqual({ private_hosts: [] });
  });

  it('refuses a bad entry as a 400 naming its index and the field', () => {
    expect(refusal(() => checkNetwork({ private_hosts: ['wiki.corp', '*.com'] }, 'pool.network'))).toEqual({
      code: 'invalid_request',
      message: 'pool.network.private_hosts[1]: \'*.com\' is a wildcard over a single label: the suffix after "*." needs at least two labels',
    });
  });

  it('keeps an allowlist (a copy); [] and a bad entry are 400s naming the field', () => {
    const list = ['example.com', '*.api.example.net:443'];
    const out = checkNetwork({ allowed_hosts: list });
    expect(out).toEqual({ allowed_hosts: list });
    expect(out!.allowed_hosts).not.toBe(list);
    expect(refusal(() => checkNetwork({ allowed_hosts: [] }))).toEqual({
      code: 'invalid_request',
      message: 'network.allowed_hosts: must list at least one host (omit it for no allowlist)',
    });
    expect(refusal(() => checkNetwork({ allowed_hosts: ['ok.example', '10.0.0.0/8'] })).message).toBe(
      "network.allowed_hosts[1]: '10.0.0.0/8' is not a host (CIDR ranges, URLs and paths are not allowlist entries)",
    );
  });
});

describe('checkNetworkUpdate', () => {
  it('replaces or removes the allowlist; the create-only keys are 400s', () => {
    expect(checkNetworkUpdate(undefined, false)).toBeUndefined();
    expect(checkNetworkUpdate({}, false)).toBeUndefined();
    expect(checkNetworkUpdate({ allowed_hosts: ['a.example'] }, false)).toEqual({ allowed_hosts: ['a.example'] });
    expect(checkNetworkUpdate({ allowed_hosts: null }, true)).toEqual({ allowed_hosts: null });
    expect(refusal(() => checkNetworkUpdate({ allowed_hosts: [] }, false)).message).toBe(
      'network.allowed_hosts: must list at least one host (send null to remove the allowlist)',
    );
    expect(refusal(() => checkNetworkUpdate({ private_hosts: ['a.corp'] }, false)).message).toMatch(/^network\.private_hosts: cannot be changed after/);
    expect(refusal(() => checkNetworkUpdate({ proxy_routes: [] }, false)).message).toMatch(/^network\.proxy_routes: cannot be changed after/);
  });

  it('a removed allowlist cannot come back (409)', () => {
    expect(refusal(() => checkNetworkUpdate({ allowed_hosts: ['a.example'] }, true))).toMatchObject({ code: 'allowed_hosts_removed' });
  });
});

describe('checkNetwork: proxy_routes', () => {
  it('keeps valid routes with their proxy as asked (id or name); [] is none', () => {
    const routes = [
      { hosts: ['*.example.com', 'api.example.net'], proxy: { id: 'p1' } },
      { hosts: ['10.1.2.3'], proxy: { name: 'office' } },
    ];
    expect(checkNetwork({ proxy_routes: routes })).toEqual({ proxy_routes: routes });
    expect(checkNetwork({ private_hosts: ['wiki.corp'], proxy_routes: routes })).toEqual({ private_hosts: ['wiki.corp'], proxy_routes: routes });
    expect(checkNetwork({ proxy_routes: [] })).toBeUndefined();
  });

  it('refuses bad routes as 400s naming the route, entry or proxy', () => {
    expect(
      refusal(() =>
        checkNetwork({
          proxy_routes: [
            { hosts: ['a.example'], proxy: { id: 'p' } },
            { hosts: ['a.example:443'], proxy: { id: 'q' } },
          ],
        }),
      ),
    ).toEqual({
      code: 'invalid_request',
      message: "network.proxy_routes[1].hosts[0]: 'a.example:443' carries a port: matching ignores ports, give the host only",
    });
    expect(
      refusal(() =>
        checkNetwork({
          proxy_routes: [
            { hosts: ['a.example'], proxy: { id: 'p' } },
            { hosts: ['A.example'], proxy: { id: 'q' } },
          ],
        }),
      ).message,
    ).toMatch(/^network\.proxy_routes\[1\]\.hosts\[0\]: 'A\.example' is already the pattern of \[0\]\.hosts\[0\]/);
    expect(refusal(() => checkNetwork({ proxy_routes: [{ hosts: ['a.example'], proxy: { mode: 'direct' } }] })).message).toMatch(
      /^network\.proxy_routes\[0\]\.proxy: is a proxy id or name/,
    );
    expect(refusal(() => checkNetwork({ proxy_routes: [{ hosts: ['a.example'], proxy: { id: 'p', name: 'n' } }] })).message).toBe(
      'network.proxy_routes[0].proxy: give exactly one of id and name',
    );
    expect(refusal(() => checkNetwork({ proxy_routes: [{ hosts: ['a.example'], proxy: {} }] })).message).toBe(
      'network.proxy_routes[0].proxy: give exactly one of id and name',
    );
  });

  it('pools take private_hosts only', () => {
    expect(checkPoolNetwork({ private_hosts: [] })).toEqual({ private_hosts: [] });
    expect(checkPoolNetwork({})).toBeUndefined();
    expect(refusal(() => checkPoolNetwork({ proxy_routes: [] }))).toEqual({
      code: 'invalid_request',
      message: 'network.proxy_routes: is not supported on pools (a per-session option): give it when creating a session',
    });
    expect(refusal(() => checkPoolNetwork({ allowed_hosts: ['a.example'] })).message).toMatch(/^network\.allowed_hosts: is not supported on pools/);
  });
});

describe('effectivePrivateHosts', () => {
  it("is the session's list when given (even empty), else Kernel's defaults", () => {
    expect(effectivePrivateHosts({ private_hosts: ['a.corp'] })).toEqual(['a.corp']);
    expect(effectivePrivateHosts({ private_hosts: [] })).toEqual([]);
    expect(effectivePrivateHosts(undefined)).toBe(DEFAULT_PRIVATE_HOSTS);
    expect(effectivePrivateHosts({})).toBe(DEFAULT_PRIVATE_HOSTS);
  });
});
