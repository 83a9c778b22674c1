/**
 * `GET /org/entitlements` (Kernel SDK 0.92), derived from what this engine really offers rather
 * than from a plan: a self-hosted install is `ENTERPRISE`/`ACTIVE` with no trial, every feature
 * the engine implements is on, and the ones it does not (GPU, Kernel's managed proxies, vaults,
 * web search) are `enabled: false`. Replays are on only when ffmpeg can be found. A null
 * constraint means no cap (the engine has no org-wide invocation cap or extension quota).
 */
import type { Feature } from '../feature.js';
import { type Entitlements } from '../../shared/wire/org.js';
import { requireApiKey } from '../domain/org/access.js';
import { DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS } from '../domain/secrets/identity-options.js';
import { HEALTH_CHECK_DEFAULT_SECONDS, HEALTH_CHECK_MAX_SECONDS } from '../domain/auth-connections/auth-connections.js';
import { ffmpegAvailable } from '../runtime/recorder/ffmpeg-run.js';
import { WebMcpHub } from '../runtime/cdp/webmcp-hub.js';
import { route } from '../route.js';

const DAY_MS = 24 * 3600_000;

export const orgEntitlementsFeature: Feature<'replays' | 'telemetryExports'> = {
  name: 'org-entitlements',
  register(app, ctx, { replays, telemetryExports }) {
    const on = { enabled: true };
    route(app, 'GET /org/entitlements', async (req): Promise<Entitlements> => {
      requireApiKey(req.auth);
      return {
        features: {
          browser_extensions: { enabled: true, max_stored_per_org: null },
          browser_pools: on,
          browser_replays: {
            enabled: ffmpegAvailable(ctx.config.env),
            retention_days: Math.ceil(replays.retentionMs / DAY_MS),
          },
          credential_providers: on,
          credentials: on,
          custom_proxies: on,
          file_io: on,
          gpu: { enabled: false },
          managed_proxies: { enabled: false },
          profiles: on,
          proxy_bypass_hosts: on,
          managed_auth: {
            enabled: true,
            health_check_interval_default_seconds: HEALTH_CHECK_DEFAULT_SECONDS,
            health_check_interval_max_seconds: HEALTH_CHECK_MAX_SECONDS,
            health_check_interval_min_seconds: ctx.config.identity.minHealthCheckIntervalSeconds ?? DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS,
            max_connections: null,
          },
          vaults: { enabled: false },
          search: { enabled: false },
          telemetry_export: { enabled: telemetryExports.enabled },
          webmcp: { enabled: !WebMcpHub.unavailableSeen() },
        },
        limits: {
          default_max_concurrent_invocations_per_app: null,
          max_concurrent_browsers: ctx.config.maxConcurrentSessions,
          max_concurrent_invocations: null,
          max_vaults: 0,
        },
        plan: { id: 'ENTERPRISE', effective_id: 'ENTERPRISE', is_trialing: false, status: 'ACTIVE', trial_ends_at: null },
      };
    });
  },
};
