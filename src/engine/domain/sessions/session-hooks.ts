/**
 * Extension points other features fill in: profiles (restore before launch, save at the end)
 * and proxies (launch flags). Until a feature registers one, a session asking for it is
 * refused with a 422 instead of the option being ignored.
 */
import type { AuthContext } from '../../http/auth.js';
import type { ProfileRef } from './session-record.js';

export interface ProfileSelector {
  id?: string;
  name?: string;
  save_changes?: boolean;
}

export interface ProfileHooks {
  /** Resolves a selector for this caller; throws ApiError (404, 409 …) when it cannot be used. */
  resolve(auth: AuthContext, selector: ProfileSelector): Promise<ProfileRef>;
  /** Restores the profile's saved state into a fresh user-data-dir, before the browser starts. */
  prepare(userDataDir: string, profile: ProfileRef): Promise<void>;
  /** Writes the browser's state back after it has closed (only when save_changes was asked). */
  save(userDataDir: string, profile: ProfileRef): Promise<void>;
}

export interface ProxyHooks {
  /** Resolves a proxy id for this caller into Chromium launch flags; throws ApiError when unusable. */
  resolve(auth: AuthContext, proxyId: string): Promise<{ id: string; launchArgs: string[] }>;
}

/** Service names under `ctx.services`. */
export const PROFILE_HOOKS = 'profileHooks';
export const PROXY_HOOKS = 'proxyHooks';
