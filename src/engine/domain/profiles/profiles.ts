/**
 * Saved browser profiles of a project: metadata in the database, state on disk (ProfileStore).
 * Addressable by id or name; names are optional, `[A-Za-z0-9._-]{1,255}`, unique per project.
 * A profile that a running session uses cannot be deleted (409). The session manager restores
 * and saves state through profile-hooks.ts.
 */
import type { Kysely } from 'kysely';
import type { Database, ProfileTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { ProfileStore } from './profile-store.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

export type ProfileRow = ProfileTable;

export interface ProfileDto {
  id: string;
  name: string | null;
  created_at: string;
  updated_at: string;
  last_used_at?: string;
}

export interface Scope {
  orgId: string;
  projectId: string;
}

const NAME = /^[A-Za-z0-9._-]{1,255}$/;

export function validateProfileName(name: string, field = 'name'): string {
  if (!NAME.test(name)) throw DomainError.invalidField(field, 'must be 1 to 255 characters of A-Z a-z 0-9 . _ -');
  return name;
}

export function profileDto(p: ProfileRow): ProfileDto {
  const dto: ProfileDto = { id: p.id, name: p.name, created_at: p.created_at, updated_at: p.updated_at };
  if (p.last_used_at) dto.last_used_at = p.last_used_at;
  return dto;
}

export class Profiles {
  private readonly savedListeners = new Set<(profileId: string) => void>();
  /** Per profile: the newest running-browser save started, and the newest one swapped in. */
  private readonly runningSaveSeq = new Map<string, number>();
  private readonly runningSaveCommitted = new Map<string, number>();
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    readonly store: ProfileStore,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async assertNameFree(scope: Scope, name: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('profiles').select('id').where('project_id', '=', scope.projectId).where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a profile named '${name}' already exists`, 'profile_name_taken');
  }

  async create(scope: Scope, name?: string): Promise<ProfileRow> {
    if (name !== undefined) {
      validateProfileName(name);
      await this.assertNameFree(scope, name);
    }
    const now = this.now();
    const row: ProfileRow = {
      id: newId(),
      org_id: scope.orgId,
      project_id: scope.projectId,
      name: name ?? null,
      created_at: now,
      updated_at: now,
      last_used_at: null,
    };
    try {
      await this.db.insertInto('profiles').values(row).execute();
    } catch (e) {
      // The unique index settles a race between two creates of the same name.
      if (name !== undefined && (await this.find(scope, name))) throw DomainError.conflict(`a profile named '${name}' already exists`, 'profile_name_taken');
      throw e;
    }
    this.changes.upsert(row.org_id, 'profile', row.id, row.project_id);
    return row;
  }

  async find(scope: Scope, idOrName: string): Promise<ProfileRow | undefined> {
    const base = this.db.selectFrom('profiles').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name', '=', idOrName).executeTakeFirst());
  }

  async get(scope: Scope, idOrName: string): Promise<ProfileRow> {
    const p = await this.find(scope, idOrName);
    if (!p) throw DomainError.notFound('profile', idOrName);
    return p;
  }

  async byId(id: string): Promise<ProfileRow | undefined> {
    return this.db.selectFrom('profiles').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async byIds(ids: string[]): Promise<ProfileRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('profiles').selectAll().where('id', 'in', ids).execute();
  }

  async list(scope: Scope, q: { offset: number; limit: number; name?: string; query?: string }): Promise<ProfileRow[]> {
    let sel = this.db.selectFrom('profiles').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
    if (q.name !== undefined) sel = sel.where('name', '=', q.name);
    if (q.query) {
      const query = q.query;
      sel = sel.where((eb) => eb.or([containsInsensitive('name', query), eb('id', '=', query)]));
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async rename(scope: Scope, idOrName: string, name: string): Promise<ProfileRow> {
    validateProfileName(name);
    const p = await this.get(scope, idOrName);
    if (p.name === name) return p;
    await this.assertNameFree(scope, name, p.id);
    const updated_at = this.now();
    await this.db.updateTable('profiles').set({ name, updated_at }).where('id', '=', p.id).execute();
    this.changes.upsert(p.org_id, 'profile', p.id, p.project_id);
    return { ...p, name, updated_at };
  }

  async delete(scope: Scope, idOrName: string): Promise<void> {
    const p = await this.get(scope, idOrName);
    const using = await this.sessionsUsing(p.id);
    if (using > 0) throw DomainError.conflict(`profile '${idOrName}' is in use by ${using} running browser session(s); delete them first`, 'profile_in_use');
    await this.db.deleteFrom('profiles').where('id', '=', p.id).execute();
    this.changes.delete(p.org_id, 'profile', p.id, p.project_id);
    await this.store.remove(p.id);
  }

  async countInProject(projectId: string): Promise<number> {
    const r = await this.db
      .selectFrom('profiles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Stamps last_used_at (a session starts with this profile). */
  async touch(profileId: string): Promise<ProfileRow | undefined> {
    await this.db.updateTable('profiles').set({ last_used_at: this.now() }).where('id', '=', profileId).execute();
    return this.byId(profileId);
  }

  /** How many running sessions (on any node) use this profile. */
  async sessionsUsing(profileId: string): Promise<number> {
    const r = await this.db
      .selectFrom('browser_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile_id', '=', profileId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Subscribes to saved-state changes (pools refresh idle browsers that loaded an older state). */
  onSaved(fn: (profileId: string) => void): () => void {
    this.savedListeners.add(fn);
    return () => this.savedListeners.delete(fn);
  }

  /** Writes a session's state back at its end (last to finish wins) and records the change time. */
  async saveFrom(profileId: string, userDataDir: string): Promise<void> {
    if (!(await this.byId(profileId))) return; // deleted meanwhile: nothing to save into
    await this.store.saveFrom(profileId, userDataDir);
    await this.saved(profileId);
  }

  /**
   * Starts saving a running browser into a profile (§8). Of overlapping saves of a running
   * browser the one that started last wins, even when an earlier one finishes later (that one's
   * copy is dropped); against the end-of-session save they are ordered by finish. `copy` is
   * called with the closed browser's user-data-dir; `commit` swaps it in, once the browser is back.
   */
  beginRunningSave(profileId: string): { copy(userDataDir: string): Promise<void>; commit(): Promise<void>; discard(): Promise<void> } {
    const ticket = (this.runningSaveSeq.get(profileId) ?? 0) + 1;
    this.runningSaveSeq.set(profileId, ticket);
    let staged: string | undefined;
    return {
      copy: async (userDataDir) => {
        staged = (await this.store.stage(profileId, userDataDir)).dir;
      },
      commit: async () => {
        if (!staged) return;
        const dir = staged;
        staged = undefined;
        const wanted = () => ticket > (this.runningSaveCommitted.get(profileId) ?? 0);
        if (!(await this.byId(profileId)) || !(await this.store.commit(profileId, dir, wanted))) return void (await this.store.discard(dir));
        this.runningSaveCommitted.set(profileId, ticket);
        await this.saved(profileId);
      },
      discard: async () => {
        if (staged) await this.store.discard(staged);
        staged = undefined;
      },
    };
  }

  private async saved(profileId: string): Promise<void> {
    const now = this.now();
    await this.db.updateTable('profiles').set({ updated_at: now, last_used_at: now }).where('id', '=', profileId).execute();
    const row = await this.byId(profileId);
    if (row) this.changes.upsert(row.org_id, 'profile', row.id, row.project_id);
    for (const fn of this.savedListeners) fn(profileId);
  }
}
