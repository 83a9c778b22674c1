/**
 * Health checks of proxies. Custom, ISP and datacenter proxies: request the target through the
 * proxy (undici ProxyAgent, CONNECT tunnel) and record whether it answered and which IP the
 * target saw (the body of an IP-echo target such as ipify, else the proxy host's address).
 * Residential and mobile proxies rotate exits, so their check only validates the configuration
 * and that the upstream accepts connections.
 *
 * A check is a connection the engine makes to an address a tenant chose, so the proxy's address
 * passes the same egress policy as a session's traffic (egress-policy.ts: `--egress-deny`, and the
 * host's loopback unless allowed) and is connected to exactly as checked: otherwise a project key
 * could probe the engine's own port, local services or cloud metadata with "checks".
 */
import net from 'node:net';
import tls from 'node:tls';
import { ProxyAgent, request } from 'undici';
import { proxyAuthorization, type Upstream } from '../../runtime/proxy-forwarder/upstream.js';
import { EgressDenied, type EgressPolicy } from '../../runtime/proxy-forwarder/egress-policy.js';

export interface CheckResult {
  status: 'available' | 'unavailable';
  ip_address: string | null;
  /** Why it is unavailable (for logs; not part of the wire record). */
  reason?: string;
}

function ipFromBody(body: string): string | null {
  const text = body.trim();
  if (net.isIP(text)) return text;
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    for (const k of ['ip', 'origin', 'ip_address', 'query']) {
      const v = j[k];
      if (typeof v === 'string' && net.isIP(v.split(',')[0].trim())) return v.split(',')[0].trim();
    }
  } catch {}
  return null;
}

/** The proxy's address the policy allows, or the check's 'unavailable' answer. */
async function checkedAddress(upstream: Upstream, policy: EgressPolicy): Promise<string | CheckResult> {
  try {
    return await policy.resolve(upstream.host);
  } catch (err) {
    const reason = err instanceof EgressDenied ? err.message : `cannot resolve ${upstream.host}`;
    return { status: 'unavailable', ip_address: null, reason };
  }
}

function hostOf(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * Requests `target` through the upstream; any HTTP answer below 500 counts as reachable.
 * `caBundle` (PEM, a TLS-intercepting proxy's `ca_bundle`) is trusted besides the usual roots,
 * as the proxy's sessions trust it.
 */
export async function checkThroughProxy(upstream: Upstream, target: string, timeoutMs: number, policy: EgressPolicy, caBundle?: string): Promise<CheckResult> {
  const address = await checkedAddress(upstream, policy);
  if (typeof address !== 'string') return address;
  const ca = caBundle ? [...tls.rootCertificates, caBundle] : undefined;
  const agent = new ProxyAgent({
    uri: `${upstream.protocol}://${hostOf(address)}:${upstream.port}`,
    token: proxyAuthorization(upstream),
    connect: { timeout: timeoutMs },
    proxyTls: { timeout: timeoutMs, ...(net.isIP(upstream.host) ? {} : { servername: upstream.host }) },
    requestTls: { timeout: timeoutMs, ...(ca ? { ca } : {}) },
  });
  // The request's own signal is not enough: a "proxy" that closes every CONNECT unanswered makes
  // undici reconnect in a tight loop that ignores it (tens of thousands of connections, the
  // engine's event loop busy, the check never answering). Destroying the agent ends the loop.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`no answer through the proxy within ${timeoutMs} ms`));
      void agent.destroy().catch(() => {});
    }, timeoutMs);
  });
  try {
    const res = await Promise.race([deadline, requestThrough(agent, target, timeoutMs)]);
    const body = (await Promise.race([deadline, res.body.text()])).slice(0, 4096);
    if (res.statusCode >= 500) return { status: 'unavailable', ip_address: null, reason: `target answered ${res.statusCode} through the proxy` };
    return { status: 'available', ip_address: ipFromBody(body) ?? address };
  } catch (err) {
    return { status: 'unavailable', ip_address: null, reason: (err as Error).message };
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => {});
  }
}

function requestThrough(agent: ProxyAgent, target: string, timeoutMs: number) {
  return request(target, {
    dispatcher: agent,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'application/json, text/plain, */*' },
  });
}

/** Opens (and closes) a connection to the upstream proxy itself: configuration and connectivity. */
export async function checkConnectivity(upstream: Upstream, timeoutMs: number, policy: EgressPolicy): Promise<CheckResult> {
  const address = await checkedAddress(upstream, policy);
  if (typeof address !== 'string') return address;
  return new Promise<CheckResult>((resolve) => {
    const socket =
      upstream.protocol === 'https'
        ? tls.connect({ host: address, port: upstream.port, servername: net.isIP(upstream.host) ? undefined : upstream.host })
        : net.connect({ host: address, port: upstream.port });
    const done = (r: CheckResult): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ status: 'unavailable', ip_address: null, reason: `connect timeout after ${timeoutMs} ms` }), timeoutMs);
    socket.once(upstream.protocol === 'https' ? 'secureConnect' : 'connect', () => done({ status: 'available', ip_address: address }));
    socket.once('error', (err) => done({ status: 'unavailable', ip_address: null, reason: err.message }));
  });
}
