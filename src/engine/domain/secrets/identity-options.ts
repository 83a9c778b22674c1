/**
 * Engine options of the identity & network features (secrets, proxies, auth connections), as
 * one `EngineOptions.identity` object. Every field has a production default; tests shorten the
 * timers, and the desktop app plugs in its keychain-backed SecretKeyProvider.
 */
import type { Timers } from '../../../shared/clock.js';
import type { SecretKeyProvider } from './secret-key-provider.js';
import type { ProxyProviderConfig } from '../proxies/proxy-providers.js';

/** `minHealthCheckIntervalSeconds` when not set. */
export const DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS = 300;

export interface IdentityOptions {
  /** Where the secret key comes from; default: env BROWSERDECK_SECRET_KEY, else `<dataDir>/secret.key`. */
  secretKeyProvider?: SecretKeyProvider;
  /**
   * Upstream providers for datacenter/isp/residential/mobile proxies; default: env
   * BROWSERDECK_PROXY_PROVIDERS (JSON), else `<dataDir>/proxy-providers.json` when present.
   */
  proxyProviders?: ProxyProviderConfig;
  /** How long a login flow waits for input before it is EXPIRED (default 600 s). */
  authFlowTtlSeconds?: number;
  /**
   * Tests only (no flag, no variable): the timers that expire login flows; default the
   * process's own. A test expires a flow when it says so, on the engine its other flows share
   * (test/helpers/manual-timers.ts).
   */
  flowTimers?: Timers;
  /**
   * Tests only (no flag, no variable): how long a login flow's submit (the Enter press or the
   * button click) may take, in ms; default 5 000. A test of a site slower than that to answer
   * a submit waits past it: a shorter one here keeps that wait short.
   */
  flowActionTimeoutMs?: number;
  /** Smallest accepted `health_check_interval` (default 300 s; tests use a few seconds). */
  minHealthCheckIntervalSeconds?: number;
  /** Default target of proxy checks (an IP-echo service; default https://api.ipify.org?format=json, env BROWSERDECK_PROXY_CHECK_URL). */
  proxyCheckUrl?: string;
  /** Timeout of proxy checks and of connecting to an upstream proxy (default 10 000 ms). */
  proxyTimeoutMs?: number;
  /** Deadline of each call into a credential provider (1Password), e.g. test and items (default 15 000 ms). */
  credentialProviderTimeoutMs?: number;
}
