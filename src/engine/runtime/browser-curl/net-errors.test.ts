import { describe, expect, it } from 'vitest';
import { EgressDenied, THIS_HOST_HINT } from '../proxy-forwarder/egress-policy.js';
import { EGRESS_DENIED, NetError, proxyRefusalDetail } from './net-errors.js';

describe("/curl's error for an egress refusal", () => {
  it("passes on the forwarder's words, so a refusal of this host names --egress-allow-loopback and its variable", () => {
    // The body the forwarder answers (local-forwarder.ts deniedText) for a page asking for a local dev server.
    const body = `Browserdeck proxy: ${new EgressDenied('localhost', '127.0.0.1', '127.0.0.0/8', THIS_HOST_HINT).message}\n`;
    const err = new NetError(EGRESS_DENIED, proxyRefusalDetail(body));
    expect(err.netName).toBe('net::ERR_NETWORK_ACCESS_DENIED');
    expect(err.message).toBe(
      "net::ERR_NETWORK_ACCESS_DENIED: egress to localhost (127.0.0.1) is denied by the engine's egress policy (127.0.0.0/8); this host (loopback and its own addresses) is opened to tenants only by --egress-allow-loopback (BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1)",
    );
  });

  it('keeps the plain message when the refusal has no words', () => {
    expect(proxyRefusalDetail(' \n')).toBeUndefined();
    expect(new NetError(EGRESS_DENIED, proxyRefusalDetail('')).message).toBe('the browser could not complete the request: net::ERR_NETWORK_ACCESS_DENIED');
  });
});
