/**
 * Whether this engine runs apps (installs, discovery, invocations) in the app jail
 * (runtime/app-runtime/app-jail.ts): wherever it jails browsers.
 */
import type { EngineContext } from '../../context.js';
import type { AppJail } from '../../runtime/app-runtime/app-jail.js';
import { jailStatus } from '../../runtime/sandbox/jail-status.js';

export async function appJailOf(ctx: Pick<EngineContext, 'config'>): Promise<AppJail | undefined> {
  const { bwrap } = await jailStatus(ctx.config);
  return bwrap ? { bwrap, hide: [ctx.config.dataDir] } : undefined;
}
