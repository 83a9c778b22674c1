/**
 * Saving a running browser into a profile (Kernel spec §8, `POST /browsers/{id}/profiles`):
 * Chromium is restarted through the same path as an extension reload, and while it is closed
 * (its SQLite/LevelDB files flushed) the profile parts of its user-data-dir are copied beside the
 * profile's saved state; once the browser accepts CDP again the copy is swapped in. Caches and
 * service-worker storage are not profile parts (profile-files.ts), so they stay out. The session
 * keeps running with its own profile binding and `save_changes` untouched; the restarted browser
 * opens the tabs that were open (their URLs: pages reload, as Kernel's do); a success counts as
 * activity (its inactivity timer restarts), a failure does not.
 *
 * The copy reads only this session's user-data-dir, which only its browser (closed meanwhile)
 * can write; symlinks in it are skipped. Profile directories are created 0700.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { AuthContext } from '../org/auth-context.js';
import type { Profiles, ProfileRow } from '../profiles/profiles.js';
import type { SessionManager } from './session-manager.js';
import type { RunningSession } from '../../runtime/session/running-session.js';
import { openTabUrls, reopenTabs } from '../../runtime/chromium/open-tabs.js';

export interface ProfileTarget {
  id?: string;
  name?: string;
}

/** The destination: a profile by id, an existing or new one by name, or a new unnamed one. */
async function destination(profiles: Profiles, scope: { orgId: string; projectId: string }, target: ProfileTarget): Promise<ProfileRow> {
  if (target.id !== undefined && target.name !== undefined) throw DomainError.invalidField('profile', 'give either id or name, not both');
  if (target.id !== undefined) {
    const row = await profiles.find(scope, target.id);
    if (!row) throw new DomainError(404, 'profile_not_found', `profile '${target.id}' not found`);
    return row;
  }
  if (target.name !== undefined) {
    const existing = await profiles.find(scope, target.name);
    if (existing) return existing;
    return profiles.create(scope, target.name).catch(async (err: unknown) => (await profiles.find(scope, target.name!)) ?? Promise.reject(err));
  }
  return profiles.create(scope);
}

export async function saveRunningBrowserToProfile(
  sessions: SessionManager,
  profiles: Profiles,
  auth: AuthContext,
  idOrName: string,
  target: ProfileTarget,
): Promise<ProfileRow> {
  const row = await sessions.findRow(auth, idOrName);
  if (!row) throw DomainError.notFound('browser session', idOrName);
  const notActive = () => DomainError.conflict(`browser session '${idOrName}' is no longer active; only a running browser can be saved`, 'browser_not_active');
  if (row.deleted_at) throw notActive();
  if (row.pool_id) {
    throw DomainError.conflict(
      `browser session '${idOrName}' belongs to pool '${row.pool_id}': a pooled browser cannot be saved into a profile (use a session of its own)`,
      'pooled_browser',
    );
  }
  const rt = sessions.get(row.id);
  if (!rt || rt.ended) throw notActive();
  const profile = await destination(profiles, { orgId: row.org_id, projectId: row.project_id }, target);
  const save = profiles.beginRunningSave(profile.id);
  const release = rt.holdThawed();
  try {
    const tabs = await tabsOf(rt);
    try {
      await rt.restartWith((userDataDir) => save.copy(userDataDir));
    } finally {
      // The browser is back (or the session ended) whether or not the copy worked.
      await restoreTabs(rt, tabs);
    }
    await save.commit();
  } catch (err) {
    await save.discard();
    if (rt.ended) throw notActive();
    throw new DomainError(502, 'profile_save_failed', `the browser's state could not be saved: ${(err as Error).message}`);
  } finally {
    release();
  }
  rt.touch();
  return (await profiles.byId(profile.id)) ?? profile;
}

/** The open tabs' URLs; none when they cannot be read (the save goes on without restoring). */
async function tabsOf(rt: RunningSession): Promise<string[]> {
  const control = (await rt.ready()).control;
  return openTabUrls(control).catch(() => []);
}

async function restoreTabs(rt: RunningSession, urls: string[]): Promise<void> {
  if (rt.ended || !urls.length) return;
  try {
    await reopenTabs((await rt.ready()).control, urls);
  } catch {
    // Best effort, like Kernel's restore: the save's outcome does not depend on it.
  }
}
