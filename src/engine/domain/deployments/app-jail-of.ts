/**
 * Whether this engine runs apps (installs, discovery, invocations) in the app jail
 * (runtime/app-runtime/app-jail.ts): wherever it jails browsers. The jail's traffic leaves
 * through the engine's egress policy, and the engine is reached at its public URL.
 */
import type { EngineContext } from '../../context.js';
import type { AppJail } from '../../runtime/app-runtime/app-jail.js';
import { tenantEgressPolicyOf } from '../../runtime/proxy-forwarder/egress-policy.js';
import { jailStatus } from '../../runtime/sandbox/jail-status.js';

export async function appJailOf(ctx: Pick<EngineContext, 'config' | 'publicUrl'>): Promise<AppJail | undefined> {
  const { bwrap } = await jailStatus(ctx.config);
  return bwrap
    ? { bwrap, hide: [ctx.config.dataDir], policy: tenantEgressPolicyOf(ctx.config.egressDeny, ctx.config.egressLoopback), publicUrl: ctx.publicUrl() }
    : undefined;
}
