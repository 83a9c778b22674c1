/**
 * The session manager's hook into profiles (`services.profiles`, type ProfileService).
 * Usage from the session manager:
 *
 *   const binding = await profiles.attach(auth, body.profile, sessionId); // 404 if missing
 *   await binding.restore(dirs.userData);        // before Chromium first starts
 *   session.profile = binding.profile;            // for the Session object
 *   ...
 *   // at session end, AFTER the browser closed cleanly (Browser.close) so SQLite/LevelDB are flushed:
 *   await binding.finish(dirs.userData);          // saves back if save_changes, releases the in-use mark
 *
 * `finish` is idempotent. A profile counts as in use (not deletable) while a session row that
 * names it is active. A session whose browser could not be closed cleanly should call
 * `finish(dir, {save: false})`: a torn copy would be worse than the last good save.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { profileDto, type ProfileDto, type Profiles, type Scope } from './profiles.js';

export interface ProfileSelector {
  id?: string;
  name?: string;
  save_changes?: boolean;
}

export interface ProfileBinding {
  readonly profileId: string;
  /** As it was when the session attached (last_used_at = now). */
  readonly profile: ProfileDto;
  readonly saveChanges: boolean;
  restore(userDataDir: string): Promise<void>;
  finish(userDataDir: string, opts?: { save?: boolean }): Promise<void>;
}

export interface ProfileService {
  readonly profiles: Profiles;
  /** Resolves a session's `profile` option; throws 400 for a bad selector, 404 for an unknown profile. */
  attach(scope: Scope, selector: ProfileSelector, sessionId: string): Promise<ProfileBinding>;
  /** The current wire form of a profile, or undefined when it was deleted. */
  dto(profileId: string): Promise<ProfileDto | undefined>;
  /** The current wire forms of several profiles (one query); deleted ones are absent. */
  dtos(profileIds: string[]): Promise<Map<string, ProfileDto>>;
}

export function profileService(profiles: Profiles): ProfileService {
  return {
    profiles,
    async attach(scope, selector, sessionId) {
      const { id, name } = selector;
      if (id === undefined && name === undefined) throw DomainError.invalidField('profile', 'give the profile id or name');
      if (id !== undefined && name !== undefined) throw DomainError.invalidField('profile', 'give either id or name, not both');
      const key = (id ?? name) as string;
      const row = await profiles.find(scope, key);
      if (!row) throw new DomainError(404, 'profile_not_found', `profile '${key}' not found; create it first with POST /profiles`);
      void sessionId; // in-use is read from browser_sessions.profile_id (works across nodes)
      const used = (await profiles.touch(row.id)) ?? row;
      let finished = false;
      return {
        profileId: row.id,
        profile: profileDto(used),
        saveChanges: selector.save_changes === true,
        async restore(userDataDir) {
          await profiles.store.restoreInto(row.id, userDataDir);
        },
        async finish(userDataDir, opts = {}) {
          if (finished) return;
          finished = true;
          if (selector.save_changes === true && opts.save !== false) await profiles.saveFrom(row.id, userDataDir);
        },
      };
    },
    async dto(profileId) {
      const row = await profiles.byId(profileId);
      return row ? profileDto(row) : undefined;
    },
    async dtos(profileIds) {
      const rows = await profiles.byIds([...new Set(profileIds)]);
      return new Map(rows.map((r) => [r.id, profileDto(r)]));
    },
  };
}
