/**
 * A pool's configuration: validated on create, merged on PATCH (with the wire's clearing
 * rules: `proxy_id: ""`, `start_url: ""`, `profile: {id: ""}` and `network: {}` clear, `name: ""`
 * is a no-op),
 * stored as the `browser_pool_config` the API returns, and turned into the session-create
 * body every pooled browser is launched with.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { CreateBody } from '../sessions/session-create.js';
import { exportRequestOf } from '../telemetry-destinations/telemetry-export.js';
import {
  checkChromePolicy,
  checkExtensions,
  normalizeTelemetry,
  type TelemetryConfig,
  validateName,
  validateStartUrl,
  validateTimeout,
  validateViewport,
} from '../sessions/session-options.js';
import { checkPoolNetwork } from '../sessions/session-network.js';
import { checkRegion, DEFAULT_REGION } from '../sessions/session-region.js';
import { MAX_FILL_RATE, MAX_POOL_SIZE, type PoolConfig, type PoolCreate, type PoolUpdate } from '../../../shared/wire/pools.js';

export { MAX_POOL_SIZE, MAX_FILL_RATE };
export const DEFAULT_FILL_RATE = 25;
export const DEFAULT_POOL_TIMEOUT = 600;

function checkSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > MAX_POOL_SIZE) throw DomainError.invalidField('size', `must be an integer from 1 to ${MAX_POOL_SIZE}`);
  return size;
}

function checkFillRate(rate: number): number {
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_FILL_RATE)
    throw DomainError.invalidField('fill_rate_per_minute', `must be an integer from 1 to ${MAX_FILL_RATE} (percent of size per minute)`);
  return rate;
}

/** Validates the options a pooled browser would be created with; profile resolution happens in the service. */
function checkOptions(c: PoolConfig): PoolConfig {
  checkSize(c.size);
  if (c.fill_rate_per_minute !== undefined) checkFillRate(c.fill_rate_per_minute);
  if (c.name !== undefined) validateName(c.name);
  if (c.start_url !== undefined) validateStartUrl(c.start_url);
  if (c.viewport !== undefined) validateViewport(c.viewport);
  validateTimeout(c.timeout_seconds ?? DEFAULT_POOL_TIMEOUT);
  checkChromePolicy(c.chrome_policy);
  checkExtensions(c.extensions);
  return c;
}

function checkSelector(p: { id?: string; name?: string } | undefined): void {
  if (p && p.id && p.name) throw DomainError.invalidField('profile', 'give either id or name, not both');
}

/** `nodeRegion`: the region of this node, where the pool's browsers run (the pool's `region`). */
export function configFromCreate(body: PoolCreate, nodeRegion = DEFAULT_REGION): PoolConfig {
  checkSelector(body.profile);
  const c: PoolConfig = {
    size: body.size,
    region: checkRegion(body.region, nodeRegion, 'browser pool'),
    fill_rate_per_minute: body.fill_rate_per_minute ?? DEFAULT_FILL_RATE,
    headless: body.headless ?? false,
    kiosk_mode: body.kiosk_mode ?? false,
    stealth: body.stealth ?? false,
    timeout_seconds: body.timeout_seconds ?? DEFAULT_POOL_TIMEOUT,
  };
  if (body.name) c.name = body.name;
  if (body.chrome_policy !== undefined) c.chrome_policy = body.chrome_policy;
  if (body.extensions !== undefined) c.extensions = body.extensions;
  const network = checkPoolNetwork(body.network);
  if (network) c.network = network;
  if (body.profile && (body.profile.id || body.profile.name)) {
    c.profile = body.profile.id ? { id: body.profile.id } : { name: body.profile.name };
    c.refresh_on_profile_update = body.refresh_on_profile_update ?? true;
  } else if (body.refresh_on_profile_update !== undefined) c.refresh_on_profile_update = body.refresh_on_profile_update;
  if (body.proxy_id) c.proxy_id = body.proxy_id;
  if (body.start_url) c.start_url = body.start_url;
  if (body.telemetry !== undefined) c.telemetry = normalizeTelemetry(body.telemetry);
  if (body.viewport) c.viewport = validateViewport(body.viewport);
  return checkOptions(c);
}

export function configWithUpdate(current: PoolConfig, body: PoolUpdate): PoolConfig {
  checkSelector(body.profile);
  const c: PoolConfig = { ...current };
  if (body.size !== undefined) c.size = body.size;
  if (body.fill_rate_per_minute !== undefined) c.fill_rate_per_minute = body.fill_rate_per_minute;
  for (const k of ['headless', 'kiosk_mode', 'stealth', 'refresh_on_profile_update'] as const) if (body[k] !== undefined) c[k] = body[k];
  if (body.timeout_seconds !== undefined) c.timeout_seconds = body.timeout_seconds;
  if (body.name) c.name = body.name; // "" is a no-op
  if (body.chrome_policy !== undefined) c.chrome_policy = body.chrome_policy;
  if (body.extensions !== undefined) c.extensions = body.extensions;
  if (body.network !== undefined) {
    // Only browsers launched from now on get it (as every pool option); `{}` removes it.
    const network = checkPoolNetwork(body.network);
    if (network) c.network = network;
    else delete c.network;
  }
  if (body.proxy_id !== undefined) {
    if (body.proxy_id === '') delete c.proxy_id;
    else c.proxy_id = body.proxy_id;
  }
  if (body.start_url !== undefined) {
    if (body.start_url === '') delete c.start_url;
    else c.start_url = body.start_url;
  }
  if (body.profile !== undefined) {
    if (!body.profile.id && !body.profile.name) delete c.profile;
    else c.profile = body.profile.id ? { id: body.profile.id } : { name: body.profile.name };
  }
  // Merged as a session's PATCH merges it: what the body omits (categories, excluded methods, the export binding) stays.
  // The stored telemetry is normalizeTelemetry's own output (configFromCreate, earlier PATCHes); the wire type is looser.
  if (body.telemetry !== undefined) c.telemetry = normalizeTelemetry(body.telemetry, current.telemetry as TelemetryConfig | null | undefined);
  if (body.viewport !== undefined) c.viewport = validateViewport(body.viewport);
  return checkOptions(c);
}

/** The session-create body of one pooled browser (the pool's profile is loaded read-only). */
export function sessionBodyOf(c: PoolConfig): CreateBody {
  const body: CreateBody = {
    headless: c.headless ?? false,
    kiosk_mode: c.kiosk_mode ?? false,
    stealth: c.stealth ?? false,
    timeout_seconds: c.timeout_seconds ?? DEFAULT_POOL_TIMEOUT,
  };
  if (c.chrome_policy) body.chrome_policy = c.chrome_policy;
  if (c.extensions) body.extensions = c.extensions;
  if (c.network) body.network = c.network;
  if (c.profile) body.profile = { ...c.profile, save_changes: false };
  if (c.proxy_id) body.proxy_id = c.proxy_id;
  if (c.start_url) body.start_url = c.start_url;
  // The stored excluded methods are CDP method names the wire checked when the pool was written; stored, they are plain strings.
  if (c.telemetry !== undefined)
    body.telemetry = c.telemetry
      ? {
          browser: c.telemetry.browser as NonNullable<CreateBody['telemetry']>['browser'],
          ...(c.telemetry.export ? { export: exportRequestOf(c.telemetry.export) } : {}),
        }
      : null;
  if (c.viewport) body.viewport = c.viewport;
  return body;
}

/** Launches allowed per minute: `fill_rate_per_minute` percent of the size, at least one. */
export function launchesPerMinute(c: PoolConfig): number {
  return Math.max(1, Math.ceil((c.size * (c.fill_rate_per_minute ?? DEFAULT_FILL_RATE)) / 100));
}
