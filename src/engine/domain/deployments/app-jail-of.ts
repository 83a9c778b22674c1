/**
 * Whether this engine runs apps (installs, discovery, invocations) in the app jail
 * (runtime/app-runtime/app-jail.ts): wherever bwrap works, unless the operator chose
 * --insecure-no-jail (also when no socat lets it jail browsers: apps need no doors). The jail's
 * traffic leaves through the engine's egress policy, and the engine is reached at its public URL.
 */
import type { EngineContext } from '../../context.js';
import type { AppJail } from '../../runtime/app-runtime/app-jail.js';
import { appJailBwrap } from '../../runtime/sandbox/jail-status.js';

export async function appJailOf(ctx: Pick<EngineContext, 'config' | 'publicUrl' | 'tenantEgress'>): Promise<AppJail | undefined> {
  const bwrap = await appJailBwrap(ctx.config);
  return bwrap ? { bwrap, hide: [ctx.config.dataDir], policy: ctx.tenantEgress, publicUrl: ctx.publicUrl() } : undefined;
}
