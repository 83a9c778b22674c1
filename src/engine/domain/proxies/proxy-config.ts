/**
 * Validation of a proxy's create request per type, producing the public config stored (and
 * returned) plus the secret parts (a custom proxy's password and CA bundle), stored encrypted.
 */
import net from 'node:net';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { parseCaBundle } from './ca-bundle.js';

export type ProxyType = 'datacenter' | 'isp' | 'residential' | 'mobile' | 'custom';

export interface ParsedProxyConfig {
  config: Record<string, unknown>;
  host: string | null;
  password?: string;
  /** A custom proxy's `ca_bundle`, normalized PEM (ca-bundle.ts). */
  caBundle?: string;
}

const GEO_FIELDS: Record<Exclude<ProxyType, 'custom'>, string[]> = {
  datacenter: ['country'],
  isp: ['country'],
  residential: ['country', 'city', 'state', 'zip', 'asn', 'os'],
  mobile: ['country', 'city', 'state'],
};

function str(config: Record<string, unknown>, key: string): string | undefined {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw DomainError.invalidField(`config.${key}`, 'must be a string');
  return v.trim();
}

export function isValidHost(host: string): boolean {
  if (net.isIP(host.replace(/^\[|\]$/g, ''))) return true;
  return (
    host.length <= 253 && /^(?=.{1,253}$)([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)(\.[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)*\.?$/.test(host)
  );
}

export function parseProxyConfig(type: ProxyType, raw: Record<string, unknown> | undefined): ParsedProxyConfig {
  const config = raw ?? {};
  if (type === 'custom') {
    const host = str(config, 'host');
    if (!host) throw DomainError.invalidField('config.host', 'is required for a custom proxy');
    if (!isValidHost(host)) throw DomainError.invalidField('config.host', 'must be a host name or IP address');
    const port = config.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      throw DomainError.invalidField('config.port', 'must be an integer from 1 to 65535');
    const username = str(config, 'username');
    const password = config.password === undefined || config.password === null ? undefined : config.password;
    if (password !== undefined && typeof password !== 'string') throw DomainError.invalidField('config.password', 'must be a string');
    // Kernel 0.85: the CA of a TLS-intercepting proxy, which its sessions' browsers will trust.
    const caBundle = config.ca_bundle === undefined || config.ca_bundle === null ? undefined : parseCaBundle(config.ca_bundle).pem;
    for (const k of Object.keys(config))
      if (!['host', 'port', 'username', 'password', 'ca_bundle'].includes(k))
        throw DomainError.invalidField(`config.${k}`, 'is not a field of a custom proxy config');
    const pub: Record<string, unknown> = { host, port };
    if (username) pub.username = username;
    return { config: pub, host: host.toLowerCase(), password: password || undefined, caBundle };
  }
  const allowed = GEO_FIELDS[type];
  const pub: Record<string, unknown> = {};
  for (const k of Object.keys(config)) {
    if (!allowed.includes(k)) throw DomainError.invalidField(`config.${k}`, `is not a field of a ${type} proxy config`);
    const v = str(config, k);
    if (v) pub[k] = v;
  }
  if (pub.country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(pub.country as string)) throw DomainError.invalidField('config.country', 'must be an ISO 3166 two-letter country code');
    pub.country = (pub.country as string).toUpperCase();
  } else if (type === 'datacenter' || type === 'isp') pub.country = 'US';
  if (pub.city !== undefined && pub.country === undefined) throw DomainError.invalidField('config.city', 'requires config.country');
  if (pub.city !== undefined && /\s/.test(pub.city as string)) throw DomainError.invalidField('config.city', 'must not contain spaces (e.g. sanfrancisco)');
  if (pub.state !== undefined && !/^[A-Za-z]{2}$/.test(pub.state as string)) throw DomainError.invalidField('config.state', 'must be a two-letter state code');
  if (pub.zip !== undefined && !/^\d{5}$/.test(pub.zip as string)) throw DomainError.invalidField('config.zip', 'must be a 5-digit US ZIP code');
  if (pub.os !== undefined && !['windows', 'macos', 'android'].includes(pub.os as string))
    throw DomainError.invalidField('config.os', 'must be windows, macos or android');
  return { config: pub, host: null };
}

/** Chromium bypass-list entries: host names, `*.domain`, IPs, CIDRs; no separators or spaces. */
export function parseBypassHosts(raw: string[] | undefined): string[] {
  const out: string[] = [];
  for (const [i, h] of (raw ?? []).entries()) {
    const v = h.trim();
    if (!v || v.length > 255 || /[\s;,<>]/.test(v)) throw DomainError.invalidField(`bypass_hosts.${i}`, 'must be a host name, *.domain, IP address or CIDR');
    out.push(v);
  }
  if (out.length > 100) throw DomainError.invalidField('bypass_hosts', 'at most 100 entries');
  return out;
}
