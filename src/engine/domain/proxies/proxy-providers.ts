/**
 * Upstream providers for the managed proxy types (datacenter, isp, residential, mobile). The
 * engine has no proxy network of its own: the operator configures, per type and optionally per
 * country, an upstream proxy URL `http(s)://user:pass@host:port`. Many providers encode geo
 * targeting in the username, so `{country}`, `{city}`, `{state}`, `{zip}`, `{asn}` in the URL are
 * replaced with the proxy's (lower-cased) config values.
 *
 * Sources, first found wins: `EngineOptions.identity.proxyProviders`, env
 * `BROWSERDECK_PROXY_PROVIDERS` (JSON), `<dataDir>/proxy-providers.json`. Example:
 *   {"datacenter": {"default": "http://u:p@dc.example:8000", "countries": {"DE": "http://u:p@de.dc.example:8000"}},
 *    "residential": "http://u-country-{country}:p@res.example:9000"}
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Upstream } from '../../runtime/proxy-forwarder/upstream.js';

export type ManagedProxyType = 'datacenter' | 'isp' | 'residential' | 'mobile';
export type ProviderEntry = string | { default?: string; countries?: Record<string, string> };
export type ProxyProviderConfig = Partial<Record<ManagedProxyType, ProviderEntry>>;

export function loadProviderConfig(opts: { configured?: ProxyProviderConfig; env: NodeJS.ProcessEnv; dataDir: string }): ProxyProviderConfig {
  if (opts.configured) return validateProviderConfig(opts.configured, 'identity.proxyProviders');
  if (opts.env.BROWSERDECK_PROXY_PROVIDERS) return validateProviderConfig(JSON.parse(opts.env.BROWSERDECK_PROXY_PROVIDERS), 'BROWSERDECK_PROXY_PROVIDERS');
  const file = path.join(opts.dataDir, 'proxy-providers.json');
  if (fs.existsSync(file)) return validateProviderConfig(JSON.parse(fs.readFileSync(file, 'utf8')), file);
  return {};
}

function validateProviderConfig(raw: unknown, source: string): ProxyProviderConfig {
  if (!raw || typeof raw !== 'object') throw new Error(`${source}: must be a JSON object keyed by proxy type`);
  const out: ProxyProviderConfig = {};
  for (const [type, entry] of Object.entries(raw as Record<string, unknown>)) {
    if (!['datacenter', 'isp', 'residential', 'mobile'].includes(type)) throw new Error(`${source}: unknown proxy type '${type}'`);
    const urls =
      typeof entry === 'string'
        ? [entry]
        : [(entry as { default?: string }).default, ...Object.values((entry as { countries?: Record<string, string> }).countries ?? {})];
    for (const u of urls) if (u !== undefined) parseUpstreamUrl(u.replace(/\{\w+\}/g, 'x'), `${source} ${type}`);
    out[type as ManagedProxyType] = entry as ProviderEntry;
  }
  return out;
}

export function parseUpstreamUrl(raw: string, what = 'upstream proxy'): Upstream {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${what}: not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${what}: must be http:// or https://`);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return {
    protocol: u.protocol === 'https:' ? 'https' : 'http',
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

/** The upstream for a managed proxy, or undefined when the operator configured none. */
export function resolveProvider(config: ProxyProviderConfig, type: ManagedProxyType, geo: Record<string, string | undefined>): Upstream | undefined {
  const entry = config[type];
  if (!entry) return undefined;
  const country = geo.country?.toUpperCase();
  const template = typeof entry === 'string' ? entry : ((country && entry.countries?.[country]) ?? entry.default);
  if (!template) return undefined;
  const url = template.replace(/\{(\w+)\}/g, (_m, key: string) => encodeURIComponent((geo[key] ?? '').toLowerCase()));
  return parseUpstreamUrl(url, `${type} provider`);
}
