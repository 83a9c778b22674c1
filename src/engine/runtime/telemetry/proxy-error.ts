/**
 * `proxy_error` (Kernel §6.3, network category): the egress forwarder names each of its own
 * failures in `X-Kernel-Proxy-Error` on the answer it gives the browser (the session's proxy
 * unreachable: `proxy_unavailable`; a direct destination unresolvable, timing out or refusing:
 * `upstream_*`; the egress policy: `network_policy_denied`, 403). The page tracker turns such an
 * answer into this event; this module reads the header. A value outside Kernel's list is
 * `unknown` with the value, normalized, as `raw_code`.
 */
import { KERNEL_PROXY_ERROR_HEADER } from '../proxy-forwarder/local-forwarder.js';

const CODES = new Set([
  'destination_blocked',
  'provider_blacklisted',
  'provider_unreachable',
  'proxy_unavailable',
  'upstream_timeout',
  'upstream_dns_failure',
  'upstream_connect_failed',
  'destination_route_unavailable',
  'network_policy_denied',
  'provider_rejected',
  'origin_tls_timeout',
  'origin_response_incomplete',
  'restricted_route_unavailable',
]);

export function proxyErrorOf(headers: Record<string, unknown> | undefined): { code: string; raw_code?: string } | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== KERNEL_PROXY_ERROR_HEADER || typeof v !== 'string') continue;
    const raw = v.trim().toLowerCase();
    if (CODES.has(raw)) return { code: raw };
    return { code: 'unknown', raw_code: raw.replace(/[^a-z0-9_]/g, '_').slice(0, 64) };
  }
  return undefined;
}
