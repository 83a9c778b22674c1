import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_HOSTS } from '../../runtime/proxy-forwarder/private-hosts.js';
import { checkNetwork, effectivePrivateHosts } from './session-network.js';

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

  it('refuses the Kernel keys this engine does not implement as 422s', () => {
    expect(refusal(() => checkNetwork({ proxy_routes: [] }))).toEqual({
      code: 'network_option_unsupported',
      message: 'network.proxy_routes is not supported by this engine (of network, only private_hosts is)',
    });
    expect(refusal(() => checkNetwork({ allowed_hosts: null, private_hosts: [] })).code).toBe('network_option_unsupported');
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
