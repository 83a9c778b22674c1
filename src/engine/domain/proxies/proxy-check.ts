/**
 * Health checks of proxies. Custom, ISP and datacenter proxies: request the target through the
 * proxy (undici ProxyAgent, CONNECT tunnel) and record whether it answered and which IP the
 * target saw (the body of an IP-echo target such as ipify, else the proxy host's address).
 * Residential and mobile proxies rotate exits, so their check only validates the configuration
 * and that the upstream accepts connections.
 */
import net from 'node:net';
import tls from 'node:tls';
import dns from 'node:dns/promises';
import { ProxyAgent, request } from 'undici';
import { proxyAuthorization, type Upstream } from '../../runtime/proxy-forwarder/upstream.js';

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

async function resolveHost(host: string): Promise<string | null> {
  if (net.isIP(host)) return host;
  try {
    return (await dns.lookup(host)).address;
  } catch {
    return null;
  }
}

/**
 * Requests `target` through the upstream; any HTTP answer below 500 counts as reachable.
 * `caBundle` (PEM, a TLS-intercepting proxy's `ca_bundle`) is trusted besides the usual roots,
 * as the proxy's sessions trust it.
 */
export async function checkThroughProxy(upstream: Upstream, target: string, timeoutMs: number, caBundle?: string): Promise<CheckResult> {
  const ca = caBundle ? [...tls.rootCertificates, caBundle] : undefined;
  const agent = new ProxyAgent({
    uri: `${upstream.protocol}://${upstream.host.includes(':') ? `[${upstream.host}]` : upstream.host}:${upstream.port}`,
    token: proxyAuthorization(upstream),
    connect: { timeout: timeoutMs },
    proxyTls: { timeout: timeoutMs },
    requestTls: { timeout: timeoutMs, ...(ca ? { ca } : {}) },
  });
  try {
    const res = await request(target, {
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json, text/plain, */*' },
    });
    const body = (await res.body.text()).slice(0, 4096);
    if (res.statusCode >= 500) return { status: 'unavailable', ip_address: null, reason: `target answered ${res.statusCode} through the proxy` };
    return { status: 'available', ip_address: ipFromBody(body) ?? (await resolveHost(upstream.host)) };
  } catch (err) {
    return { status: 'unavailable', ip_address: null, reason: (err as Error).message };
  } finally {
    await agent.close().catch(() => {});
  }
}

/** Opens (and closes) a connection to the upstream proxy itself: configuration and connectivity. */
export async function checkConnectivity(upstream: Upstream, timeoutMs: number): Promise<CheckResult> {
  const address = await resolveHost(upstream.host);
  if (!address) return { status: 'unavailable', ip_address: null, reason: `cannot resolve ${upstream.host}` };
  return new Promise<CheckResult>((resolve) => {
    const socket =
      upstream.protocol === 'https'
        ? tls.connect({ host: upstream.host, port: upstream.port, servername: net.isIP(upstream.host) ? undefined : upstream.host })
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
