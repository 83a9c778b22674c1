/**
 * A session's database row and its wire form (the Session object of the wire reference §3.0):
 * URLs carry a fresh session JWT, `usage.uptime_ms` is live for running sessions and frozen
 * at the end for ended ones, and optional fields are omitted rather than null.
 */
import type { BrowserSessionTable } from '../../store/schema.js';
import type { LaunchOptions, TelemetryConfig, Viewport } from './session-options.js';
import type { NetworkConfig } from './session-network.js';
import { effectiveLocation, type EffectiveLocation } from './session-location.js';
import { DEFAULT_REGION, HEADFUL_MEMORY, HEADLESS_MEMORY, type Memory } from './session-region.js';
import { LocationEmulation } from '../../runtime/cdp/location-emulation.js';
import { endedReasonOf } from './session-end-cause.js';

export type SessionRow = BrowserSessionTable;

/** The Session object's `profile`: the profile's own current metadata (only `id` once it is deleted). */
export interface ProfileRef {
  id: string;
  created_at?: string;
  name?: string | null;
  updated_at?: string;
  last_used_at?: string;
}

export interface SessionDto {
  session_id: string;
  cdp_ws_url: string;
  webdriver_ws_url: string;
  /** Classic W3C WebDriver (HTTP) base for WebdriverIO/Selenium; credentials go in a header or as HTTP Basic, not in the URL. */
  webdriver_url: string;
  created_at: string;
  headless: boolean;
  stealth: boolean;
  timeout_seconds: number;
  base_url: string;
  browser_live_view_url?: string;
  chrome_policy?: Record<string, unknown>;
  deleted_at?: string;
  ended_reason?: string;
  ended_by?: string;
  gpu: boolean;
  kiosk_mode: boolean;
  location: EffectiveLocation;
  memory: Memory;
  name?: string;
  network?: NetworkConfig;
  pool?: { id: string; name?: string };
  profile?: ProfileRef;
  profile_save_changes?: boolean;
  proxy: { mode?: 'direct' | 'default'; id?: string };
  proxy_id?: string;
  region: string;
  start_url?: string;
  tags: Record<string, string>;
  telemetry: TelemetryConfig | null;
  usage: { uptime_ms: number };
  viewport: Viewport;
  invocation_id?: string;
  jwt: string;
}

export function parseOptions(row: SessionRow): LaunchOptions {
  return JSON.parse(row.options) as LaunchOptions;
}

export function sessionUrls(publicUrl: string, id: string, jwt: string) {
  const base = `${publicUrl.replace(/\/+$/, '')}/browsers/${encodeURIComponent(id)}`;
  const ws = base.replace(/^http/, 'ws');
  const q = `?jwt=${encodeURIComponent(jwt)}`;
  return {
    base_url: base,
    cdp_ws_url: `${ws}/cdp${q}`,
    webdriver_ws_url: `${ws}/webdriver${q}`,
    webdriver_url: `${base}/webdriver`,
    browser_live_view_url: `${base}/live${q}`,
  };
}

export function sessionDto(row: SessionRow, opts: { publicUrl: string; jwt: string; uptimeMs: number; viewport?: Viewport; profile?: ProfileRef }): SessionDto {
  const o = parseOptions(row);
  const urls = sessionUrls(opts.publicUrl, row.id, opts.jwt);
  const dto: SessionDto = {
    session_id: row.id,
    cdp_ws_url: urls.cdp_ws_url,
    webdriver_ws_url: urls.webdriver_ws_url,
    webdriver_url: urls.webdriver_url,
    created_at: row.created_at,
    headless: o.headless,
    stealth: o.stealth,
    timeout_seconds: row.timeout_seconds,
    base_url: urls.base_url,
    gpu: o.gpu,
    kiosk_mode: o.kiosk_mode,
    // Newer Kernel SDKs type region and memory as required; rows from before them get the defaults.
    location: effectiveLocation(o.location, !row.deleted_at && LocationEmulation.pending(row.id)),
    memory: o.memory ?? (o.headless ? HEADLESS_MEMORY : HEADFUL_MEMORY),
    // A selected proxy is reported by its id; otherwise the mode asked for (none asked: default).
    proxy: row.proxy_id ? { id: row.proxy_id } : { mode: o.proxy_mode ?? 'default' },
    region: o.region ?? DEFAULT_REGION,
    tags: JSON.parse(row.tags) as Record<string, string>,
    telemetry: row.telemetry ? (JSON.parse(row.telemetry) as TelemetryConfig) : null,
    usage: { uptime_ms: Math.round(row.uptime_ms ?? opts.uptimeMs) },
    viewport: opts.viewport ?? o.viewport,
    jwt: opts.jwt,
  };
  // The live view exists for headless browsers too (screencast), so it is always offered.
  dto.browser_live_view_url = urls.browser_live_view_url;
  if (o.chrome_policy) dto.chrome_policy = o.chrome_policy;
  if (row.deleted_at) dto.deleted_at = row.deleted_at;
  const reason = row.deleted_at ? endedReasonOf(row.ended_reason) : undefined;
  if (reason) dto.ended_reason = reason;
  if (row.deleted_at && row.ended_by) dto.ended_by = row.ended_by;
  if (row.name) dto.name = row.name;
  if (o.network) dto.network = o.network;
  if (row.pool_id) dto.pool = { id: row.pool_id, ...(row.pool_name ? { name: row.pool_name } : {}) };
  // A profile deleted after the session ended has no known timestamps left: only its id.
  if (row.profile_id) dto.profile = opts.profile?.id === row.profile_id ? opts.profile : { id: row.profile_id };
  if (row.profile_id) dto.profile_save_changes = o.profile_save_changes ?? false;
  if (row.proxy_id) dto.proxy_id = row.proxy_id;
  if (o.start_url) dto.start_url = o.start_url;
  if (row.invocation_id) dto.invocation_id = row.invocation_id;
  return dto;
}
