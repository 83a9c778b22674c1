/**
 * Projects of an organization: names unique per org (case/accent-insensitive), addressable by
 * id or name, soft-deleted only when empty and never the last one. Other features register a
 * usage counter so "empty" covers everything that lives in a project.
 */
import type { Kysely } from 'kysely';
import type { Database, ProjectTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { checkDisplayName } from '../display-name.js';
import { newId } from '../ids.js';
import { nameKey } from '../../../shared/name-key.js';
import { contains, isUniqueViolation } from '../../store/sql-helpers.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

export type ProjectRow = ProjectTable;

/**
 * How long a project listing is served from memory. Listing is the hottest read of the org API
 * and project writes are rare; writes through this class (and limit changes) drop the cache at
 * once, so only another node's writes can take this long to show here.
 */
const LIST_CACHE_MS = 1_000;
const LIST_CACHE_MAX = 1_000;

export type ProjectUsageCounter = (projectId: string) => Promise<{ what: string; count: number }>;

export interface ProjectDto {
  id: string;
  name: string;
  status: 'active' | 'archived';
  created_at: string;
  updated_at: string;
}

export function projectDto(p: ProjectRow): ProjectDto {
  return { id: p.id, name: p.name, status: p.status, created_at: p.created_at, updated_at: p.updated_at };
}

/** A new, active project with no limits of its own (a create, and the first start's default project). */
export function newProjectRow(orgId: string, name: string, now: string): ProjectRow {
  return {
    id: newId(),
    org_id: orgId,
    name,
    name_key: nameKey(name),
    status: 'active',
    max_concurrent_sessions: null,
    max_concurrent_invocations: null,
    max_pooled_sessions: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

export class Projects {
  private readonly usage: ProjectUsageCounter[] = [];
  private readonly defaultCache = new Map<string, string>();
  private readonly listCache = new Map<string, { rows: ProjectRow[]; at: number }>();
  /** Bumped by every write, so a listing read before a write is never cached after it. */
  private listGeneration = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  addUsageCounter(counter: ProjectUsageCounter): void {
    this.usage.push(counter);
  }

  async create(orgId: string, rawName: string): Promise<ProjectRow> {
    const name = checkDisplayName(rawName);
    await this.assertNameFree(orgId, name);
    const now = this.clock.now().toISOString();
    const row = newProjectRow(orgId, name, now);
    this.forgetListings();
    await this.db
      .insertInto('projects')
      .values(row)
      .execute()
      .catch((err) => this.nameTaken(err, name))
      .finally(() => this.forgetListings());
    // A project's own id is its project_id on the feed: a key scoped to it sees its changes.
    this.changes.upsert(row.org_id, 'project', row.id, row.id);
    return row;
  }

  /** Two concurrent writers can both pass `assertNameFree`; the unique index decides. */
  private nameTaken(err: unknown, name: string): never {
    if (isUniqueViolation(err)) throw DomainError.conflict(`a project named '${name}' already exists`, 'project_name_taken');
    throw err;
  }

  private async assertNameFree(orgId: string, name: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('projects').select('id').where('org_id', '=', orgId).where('name_key', '=', nameKey(name)).where('deleted_at', 'is', null);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a project named '${name}' already exists`, 'project_name_taken');
  }

  /** Finds an active (not deleted) project by id, else by exact name. */
  async find(orgId: string, idOrName: string): Promise<ProjectRow | undefined> {
    const base = this.db.selectFrom('projects').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name_key', '=', nameKey(idOrName)).executeTakeFirst());
  }

  async get(orgId: string, idOrName: string): Promise<ProjectRow> {
    const p = await this.find(orgId, idOrName);
    if (!p) throw DomainError.notFound('project', idOrName);
    return p;
  }

  /**
   * `onlyId` confines the listing to one project (for project-scoped callers). Answers
   * synchronously from the cache (no promise: this is the hottest org read).
   */
  list(orgId: string, q: { offset: number; limit: number; query?: string; name?: string; onlyId?: string }): ProjectRow[] | Promise<ProjectRow[]> {
    // The plain listing (no filters) has a cheap key; filtered ones are JSON-encoded (which
    // starts with `[`, unlike an org id, so the two forms never collide).
    const key =
      q.query === undefined && q.name === undefined && q.onlyId === undefined
        ? `${orgId} ${q.offset} ${q.limit}`
        : JSON.stringify([orgId, q.offset, q.limit, q.query, q.name, q.onlyId]);
    const hit = this.listCache.get(key);
    if (hit && performance.now() - hit.at < LIST_CACHE_MS) return hit.rows.slice();
    return this.listAndCache(key, orgId, q);
  }

  private async listAndCache(
    key: string,
    orgId: string,
    q: { offset: number; limit: number; query?: string; name?: string; onlyId?: string },
  ): Promise<ProjectRow[]> {
    const generation = this.listGeneration;
    const rows = await this.listFromDb(orgId, q);
    if (generation === this.listGeneration) {
      if (this.listCache.size >= LIST_CACHE_MAX) this.listCache.clear();
      this.listCache.set(key, { rows, at: performance.now() });
    }
    return rows.slice();
  }

  /** Drops cached listings; called on every project write (and limit change). */
  forgetListings(): void {
    this.listGeneration++;
    this.listCache.clear();
  }

  private async listFromDb(orgId: string, q: { offset: number; limit: number; query?: string; name?: string; onlyId?: string }): Promise<ProjectRow[]> {
    let sel = this.db.selectFrom('projects').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (q.onlyId !== undefined) sel = sel.where('id', '=', q.onlyId);
    if (q.name !== undefined) sel = sel.where('name_key', '=', nameKey(q.name));
    if (q.query) sel = sel.where(contains('name_key', nameKey(q.query)));
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async update(orgId: string, idOrName: string, patch: { name?: string; status?: 'active' | 'archived' }): Promise<ProjectRow> {
    const p = await this.get(orgId, idOrName);
    const changes: Partial<ProjectRow> = {};
    if (patch.name !== undefined) {
      const name = checkDisplayName(patch.name);
      await this.assertNameFree(orgId, name, p.id);
      changes.name = name;
      changes.name_key = nameKey(name);
    }
    if (patch.status !== undefined) changes.status = patch.status;
    if (Object.keys(changes).length === 0) return p;
    changes.updated_at = this.clock.now().toISOString();
    this.forgetListings();
    await this.db
      .updateTable('projects')
      .set(changes)
      .where('id', '=', p.id)
      .execute()
      .catch((err) => this.nameTaken(err, changes.name ?? p.name))
      .finally(() => this.forgetListings());
    this.changes.upsert(p.org_id, 'project', p.id, p.id);
    return { ...p, ...changes };
  }

  async delete(orgId: string, idOrName: string): Promise<void> {
    const p = await this.get(orgId, idOrName);
    const others = await this.db
      .selectFrom('projects')
      .select('id')
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where('id', '!=', p.id)
      .limit(1)
      .execute();
    if (others.length === 0) throw DomainError.conflict('the last project of an organization cannot be deleted', 'last_project');
    for (const count of this.usage) {
      const u = await count(p.id);
      if (u.count > 0) throw DomainError.conflict(`project is not empty: it still has ${u.count} ${u.what}`, 'project_not_empty');
    }
    this.forgetListings();
    await this.db
      .updateTable('projects')
      .set({ deleted_at: this.clock.now().toISOString() })
      .where('id', '=', p.id)
      .execute()
      .finally(() => this.forgetListings());
    this.defaultCache.delete(orgId);
    this.changes.delete(p.org_id, 'project', p.id, p.id);
  }

  /** The org's oldest live project: where requests without a project scope act. */
  defaultProjectId(orgId: string): string | Promise<string> {
    // Synchronous when cached: request authentication asks this on every request.
    return this.defaultCache.get(orgId) ?? this.loadDefaultProjectId(orgId);
  }

  private async loadDefaultProjectId(orgId: string): Promise<string> {
    const p = await this.db
      .selectFrom('projects')
      .select('id')
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .executeTakeFirst();
    if (!p) throw new DomainError(409, 'no_project', 'organization has no project');
    this.defaultCache.set(orgId, p.id);
    return p.id;
  }
}
