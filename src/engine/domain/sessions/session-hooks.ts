/**
 * Extension points other features fill in: profiles (`ctx.services.profiles`, the
 * ProfileService of domain/profiles: restore before launch, save at the end) and proxies
 * (`ctx.services.proxyHooks`: launch flags). Until a feature registers one, a session asking
 * for it is refused with a 422 instead of the option being ignored.
 */
import type { AuthContext } from '../../http/auth.js';
export type { ProfileSelector, ProfileService, ProfileBinding } from '../profiles/profile-binding.js';

export interface ProxyHooks {
  /** Resolves a proxy id for this caller into Chromium launch flags; throws ApiError when unusable. */
  resolve(auth: AuthContext, proxyId: string): Promise<{ id: string; launchArgs: string[] }>;
}

/** Service names under `ctx.services`. */
export const PROFILE_SERVICE = 'profiles';
export const PROXY_HOOKS = 'proxyHooks';
