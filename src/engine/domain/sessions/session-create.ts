/**
 * Turns a create request into launch inputs: validates every option of wire §3.6 (honoured or
 * refused with a 4xx), resolves profile and proxy through their extension points.
 */
import type { AuthContext } from '../org/auth-context.js';
import {
  checkChromePolicy,
  checkExtensions,
  checkGpu,
  DEFAULT_VIEWPORT,
  normalizeTelemetry,
  validateName,
  validateStartUrl,
  validateTags,
  validateTimeout,
  validateViewport,
  type LaunchOptions,
  type TelemetryConfig,
} from './session-options.js';
import type { ProfileBinding, ProfileService, ProxyHooks, SessionProxy } from './session-hooks.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import type { ExtensionRow } from '../extensions/extensions.js';
import { checkNetwork, effectivePrivateHosts } from './session-network.js';
import { checkMemory, checkRegion } from './session-region.js';
import { mergeLocation } from './session-location.js';
import { proxyChoice } from './session-proxy-choice.js';
import type { SessionScope } from '../../runtime/session/session-scope.js';
import type { SessionCreate } from '../../../shared/wire/sessions.js';

/** The create's body as the wire schema validated it (`SessionCreateSchema`): one definition for both. */
export type CreateBody = SessionCreate;

export interface CreatePlan {
  options: LaunchOptions;
  name: string | null;
  tags: Record<string, string>;
  telemetry: TelemetryConfig;
  timeoutSeconds: number;
  invocationId: string | null;
  profile?: ProfileBinding;
  proxyId: string | null;
  /** The resolved proxy (its forwarder owned by the create's scope): `attach` it to the session. */
  proxy?: SessionProxy;
  extraArgs: string[];
  /** Uploaded extensions to unpack into the session and load (resolved in the caller's project). */
  extensions: ExtensionRow[];
}

/** The launch options of wire §3.6 a create asks for, each checked (a 4xx for one it cannot honour). */
function launchOptionsOf(
  body: CreateBody,
  region: string,
  location: ReturnType<typeof mergeLocation>,
  proxyMode: ReturnType<typeof proxyChoice>['mode'],
): LaunchOptions {
  const headless = body.headless ?? false;
  return {
    headless,
    stealth: body.stealth ?? false,
    viewport: validateViewport(body.viewport ?? DEFAULT_VIEWPORT),
    kiosk_mode: body.kiosk_mode ?? false,
    gpu: checkGpu(body.gpu),
    ...(body.start_url ? { start_url: validateStartUrl(body.start_url) } : {}),
    ...(body.chrome_policy ? { chrome_policy: checkChromePolicy(body.chrome_policy) } : {}),
    region: checkRegion(body.region, region),
    memory: checkMemory(body.memory, headless, !!body.gpu),
    ...(location ? { location } : {}),
    ...(proxyMode ? { proxy_mode: proxyMode } : {}),
    ...(body.profile && (body.profile.id || body.profile.name) ? { profile_save_changes: body.profile.save_changes === true } : {}),
  };
}

/**
 * Validates everything; attaches the profile last (it marks the profile in use for the session).
 * What the plan takes — the proxy's forwarder, the profile binding — is handed to the create's
 * `scope`, which releases it if the create does not go through.
 */
export async function planCreate(
  auth: AuthContext,
  body: CreateBody,
  scope: Pick<SessionScope, 'id' | 'own'>,
  hooks: { profiles: ProfileService; proxies: ProxyHooks; extensions: ExtensionService; region: string; jailed: boolean },
): Promise<CreatePlan> {
  // Checked in the order the fields always were: location, proxy, then the launch options.
  const location = mergeLocation(undefined, body.location);
  const choice = proxyChoice(body.proxy, body.proxy_id);
  const options = launchOptionsOf(body, hooks.region, location, choice.mode);
  const network = checkNetwork(body.network);
  // proxy_routes join it once their proxies are resolved (below), by id.
  if (network?.private_hosts) options.network = { private_hosts: network.private_hosts };
  // Enforced by the jail's egress (session-jail-choice.ts refuses it without the jail).
  if (network?.allowed_hosts) options.network = { ...options.network, allowed_hosts: network.allowed_hosts };
  const plan: CreatePlan = {
    options,
    name: body.name ? validateName(body.name) : null,
    tags: validateTags(body.tags),
    telemetry: normalizeTelemetry(body.telemetry),
    timeoutSeconds: validateTimeout(body.timeout_seconds),
    invocationId: body.invocation_id || null,
    proxyId: null,
    extraArgs: [],
    extensions: [],
  };
  if (body.extensions?.length) {
    checkExtensions(body.extensions);
    plan.extensions = await hooks.extensions.resolve({ orgId: auth.orgId, projectId: auth.projectId }, body.extensions, { use: true });
  }
  if (choice.selector || network?.proxy_routes) {
    // Private hosts only change anything behind an upstream proxy: without one every
    // destination is reached directly already. Routes alone (no top-level proxy) still need
    // the session's own forwarder to pick a proxy per destination.
    const p = await hooks.proxies.resolve(auth, choice.selector ?? null, {
      privateHosts: effectivePrivateHosts(network),
      routes: network?.proxy_routes,
      jailed: hooks.jailed,
    });
    scope.own(p, (proxy) => proxy.release?.(), 'proxy forwarder');
    plan.proxyId = p.id;
    plan.proxy = p;
    plan.extraArgs.push(...p.launchArgs);
    if (p.routes?.length) options.network = { ...options.network, proxy_routes: p.routes };
  }
  if (body.profile) {
    const binding = await hooks.profiles.attach({ orgId: auth.orgId, projectId: auth.projectId }, body.profile, scope.id);
    // Released unsaved unless the session's runtime saves it back first (runtime/session/session-runtime.ts).
    plan.profile = scope.own(binding, (b) => b.finish('', { save: false }), 'profile binding');
  }
  return plan;
}
