/**
 * The create/update options of a session, checked beyond what the JSON schema can say:
 * every option is either honoured or refused with a clear 4xx — never silently ignored.
 * Refusals that depend on this installation (GPU, policies) are 422s.
 */
import fs from 'node:fs';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { NetworkConfig } from './session-network.js';
import type { LocationOverride } from './session-location.js';
import type { Memory } from './session-region.js';
import {
  MAX_REFRESH_RATE,
  SESSION_TIMEOUT_MAX_SECONDS,
  SESSION_TIMEOUT_MIN_SECONDS,
  VIEWPORT_MAX_HEIGHT,
  VIEWPORT_MAX_WIDTH,
  VIEWPORT_MIN_HEIGHT,
  VIEWPORT_MIN_WIDTH,
} from '../../../shared/wire/sessions.js';

export interface Viewport {
  width: number;
  height: number;
  refresh_rate?: number;
}

/** What a session's browser is launched with (stored as the `options` JSON). */
export interface LaunchOptions {
  headless: boolean;
  stealth: boolean;
  viewport: Viewport;
  kiosk_mode: boolean;
  gpu: boolean;
  start_url?: string;
  chrome_policy?: Record<string, unknown>;
  /** `network` (session-network.ts): kept with the options, echoed in the Session object; only `allowed_hosts` changes (PATCH). */
  network?: NetworkConfig;
  /** PATCH removed `network.allowed_hosts` (null): it cannot be set again (Kernel). Not reported. */
  allowed_hosts_removed?: boolean;
  /** The node region it runs in (session-region.ts); absent on sessions created before regions: `us-east`. */
  region?: string;
  /** The memory reported for it (session-region.ts); absent on older sessions: by headless. */
  memory?: Memory;
  /** `location` overrides (session-location.ts), applied over CDP; changed by PATCH. */
  location?: LocationOverride;
  /** Typed `proxy.mode` when no proxy was selected (`direct` or `default`; both direct here). */
  proxy_mode?: 'direct' | 'default';
  /** The profile's `save_changes`, reported as `profile_save_changes`. */
  profile_save_changes?: boolean;
}

export const DEFAULT_VIEWPORT: Viewport = { width: 1920, height: 1080, refresh_rate: 25 };
/** The wire schema's bounds (refused there first; checked here for callers that bypass HTTP, pools and standby). */
export const MIN_TIMEOUT = SESSION_TIMEOUT_MIN_SECONDS;
export const MAX_TIMEOUT = SESSION_TIMEOUT_MAX_SECONDS;
export { MAX_REFRESH_RATE };

/** Telemetry switches live in session-telemetry-config.ts; re-exported for the callers that import them from here. */
export { TELEMETRY_CATEGORIES, normalizeTelemetry, type TelemetryConfig, type TelemetryRequest } from './session-telemetry-config.js';

export function validateViewport(v: Viewport, field = 'viewport'): Viewport {
  if (v.width < VIEWPORT_MIN_WIDTH || v.width > VIEWPORT_MAX_WIDTH)
    throw DomainError.invalidField(`${field}.width`, `must be between ${VIEWPORT_MIN_WIDTH} and ${VIEWPORT_MAX_WIDTH}`);
  if (v.height < VIEWPORT_MIN_HEIGHT || v.height > VIEWPORT_MAX_HEIGHT)
    throw DomainError.invalidField(`${field}.height`, `must be between ${VIEWPORT_MIN_HEIGHT} and ${VIEWPORT_MAX_HEIGHT}`);
  if (v.refresh_rate !== undefined && (v.refresh_rate < 1 || v.refresh_rate > MAX_REFRESH_RATE)) {
    throw DomainError.unprocessable(
      `viewport.refresh_rate ${v.refresh_rate} is not supported: the live view screencast delivers 1 to ${MAX_REFRESH_RATE} frames per second`,
      'unsupported_refresh_rate',
    );
  }
  return { width: v.width, height: v.height, ...(v.refresh_rate !== undefined ? { refresh_rate: v.refresh_rate } : {}) };
}

export function validateStartUrl(u: string): string {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    throw DomainError.invalidField('start_url', 'must be an absolute URL');
  }
  if (!['http:', 'https:', 'about:', 'data:'].includes(url.protocol)) throw DomainError.invalidField('start_url', 'must be an http, https, about or data URL');
  return u;
}

export function validateTimeout(t: number | undefined): number {
  if (t === undefined) return 60;
  if (!Number.isInteger(t) || t < MIN_TIMEOUT || t > MAX_TIMEOUT)
    throw DomainError.invalidField('timeout_seconds', `must be an integer from ${MIN_TIMEOUT} to ${MAX_TIMEOUT}`);
  return t;
}

export function validateTags(tags: Record<string, string> | null | undefined): Record<string, string> {
  if (!tags) return {};
  const entries = Object.entries(tags);
  if (entries.length > 50) throw DomainError.invalidField('tags', 'at most 50 tags');
  for (const [k, v] of entries) {
    if (k.length < 1 || k.length > 255) throw DomainError.invalidField(`tags.${k}`, 'keys must be 1 to 255 characters');
    if (typeof v !== 'string' || v.length > 255) throw DomainError.invalidField(`tags.${k}`, 'values must be strings of at most 255 characters');
  }
  return Object.fromEntries(entries);
}

export function validateName(name: string): string {
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(name)) throw DomainError.invalidField('name', 'must be 1 to 255 characters of A-Z a-z 0-9 . _ -');
  return name;
}

/** Whether this machine has a GPU render node a browser could use. */
export function gpuAvailable(): boolean {
  try {
    return fs.readdirSync('/dev/dri').some((f) => f.startsWith('renderD'));
  } catch {
    return false;
  }
}

export function checkGpu(gpu: boolean | undefined): boolean {
  if (gpu && !gpuAvailable())
    throw DomainError.unprocessable('gpu: true is not available: this engine has no GPU (no /dev/dri render node)', 'gpu_unavailable');
  return !!gpu;
}

/**
 * `chrome_policy`: Chromium policies by name (e.g. `{"URLBlocklist": ["example.com"]}`), written
 * as a managed policy file inside the session's browser jail. The shape is checked here; an
 * engine without the jail refuses non-empty policies (session-manager.ts).
 */
export function checkChromePolicy(p: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!p) return p;
  for (const name of Object.keys(p)) {
    if (!/^[A-Za-z][A-Za-z0-9]{0,99}$/.test(name))
      throw DomainError.invalidField(`chrome_policy.${name.slice(0, 100)}`, 'a policy name is letters and digits, as in URLBlocklist');
  }
  if (JSON.stringify(p).length > 256 * 1024) throw DomainError.invalidField('chrome_policy', 'at most 256 KB of policies');
  return p;
}

/** The shape of an `extensions` selector list (resolution happens in the extensions service). */
export function checkExtensions(ext: Array<{ id?: string; name?: string }> | undefined, field = 'extensions'): void {
  for (const [i, e] of (ext ?? []).entries()) {
    if (!e.id && !e.name) throw DomainError.invalidField(`${field}[${i}]`, 'give the extension id or name');
    if (e.id && e.name) throw DomainError.invalidField(`${field}[${i}]`, 'give either id or name, not both');
  }
}
