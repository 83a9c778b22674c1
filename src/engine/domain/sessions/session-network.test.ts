import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_HOSTS } from '../../runtime/proxy-forwarder/private-hosts.js';
import { checkNetwork, checkPoolNetwork, effectivePrivateHosts } from './session-network.js';

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

  it('refuses the Kernel key this engine does not implement (allowed_hosts) as a 422', () => {
    expect(refusal(() => checkNetwork({ allowed_hosts: null, private_hosts: [] }))).toEqual({
      code: 'network_option_unsupported',
      message: 'network.allowed_hosts is not supported by this engine (of network, private_hosts and proxy_routes are)',
    });
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
