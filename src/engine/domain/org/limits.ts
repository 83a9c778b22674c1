/**
 * Concurrency limits. The organization cap (`max_concurrent_sessions`) is engine
 * configuration and read-only here. Each org stores a default per-project session cap (never
 * above the org cap) and each project may override its caps; 0 or null removes a cap and an
 * omitted field stays as it is. Other features ask `LimitsService` for a project's effective
 * caps instead of reading these columns themselves. It is `services.limits` (compose.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { OrgCaps, ProjectLimits } from '../../../shared/wire/org.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Projects, ProjectRow } from './projects.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

/** What session, invocation and pool features use to enforce caps. */
export interface LimitsService {
  /** Maximum browsers running at once across the whole organization (engine configuration). */
  orgMaxConcurrentSessions(): number;
  /**
   * A project's own session cap: its explicit override, else the org's default per-project cap,
   * else null (no project cap; the org cap still applies). Enforce `min(this, org cap)`.
   */
  projectSessionCap(orgId: string, projectId: string): Promise<number | null>;
  /** A project's invocation cap (explicit override only), or null for none. */
  projectInvocationCap(orgId: string, projectId: string): Promise<number | null>;
}

export type ProjectLimitsPatch = Partial<Record<keyof ProjectLimits, number | null>>;

/** 0 and null both mean "no cap", stored as null. */
const cap = (v: number | null | undefined): number | null => (v ? v : null);

export function projectLimitsDto(p: ProjectRow): ProjectLimits {
  return {
    max_concurrent_sessions: p.max_concurrent_sessions,
    max_concurrent_invocations: p.max_concurrent_invocations,
    max_pooled_sessions: p.max_pooled_sessions,
  };
}

export class Limits implements LimitsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly projects: Projects,
    private readonly orgCap: number,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  orgMaxConcurrentSessions(): number {
    return this.orgCap;
  }

  async projectSessionCap(orgId: string, projectId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('projects')
      .innerJoin('orgs', 'orgs.id', 'projects.org_id')
      .select(['projects.max_concurrent_sessions as own', 'orgs.default_project_max_concurrent_sessions as fallback'])
      .where('projects.id', '=', projectId)
      .where('projects.org_id', '=', orgId)
      .executeTakeFirst();
    if (!row) return null;
    return row.own ?? row.fallback ?? null;
  }

  async projectInvocationCap(orgId: string, projectId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('projects')
      .select('max_concurrent_invocations')
      .where('id', '=', projectId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row?.max_concurrent_invocations ?? null;
  }

  /** Applies the fields present in `patch` to a project's overrides and returns the result. */
  async updateProjectLimits(orgId: string, idOrName: string, patch: ProjectLimitsPatch): Promise<ProjectLimits> {
    const p = await this.projects.get(orgId, idOrName);
    const changes: ProjectLimitsPatch = {};
    for (const field of ['max_concurrent_sessions', 'max_concurrent_invocations', 'max_pooled_sessions'] as const) {
      if (field in patch) changes[field] = cap(patch[field]);
    }
    if (Object.keys(changes).length > 0)
      await this.db
        .updateTable('projects')
        .set(changes)
        .where('id', '=', p.id)
        .execute()
        .finally(() => this.projects.forgetListings());
    this.changes.upsert(orgId, 'project', p.id, p.id);
    return projectLimitsDto({ ...p, ...changes });
  }

  async orgLimits(orgId: string): Promise<OrgCaps> {
    const org = await this.db.selectFrom('orgs').select('default_project_max_concurrent_sessions').where('id', '=', orgId).executeTakeFirstOrThrow();
    return { max_concurrent_sessions: this.orgCap, default_project_max_concurrent_sessions: org.default_project_max_concurrent_sessions };
  }

  async updateOrgLimits(orgId: string, patch: { default_project_max_concurrent_sessions?: number | null }): Promise<OrgCaps> {
    if ('default_project_max_concurrent_sessions' in patch) {
      const value = cap(patch.default_project_max_concurrent_sessions);
      if (value !== null && value > this.orgCap) {
        throw DomainError.invalidField(
          'default_project_max_concurrent_sessions',
          `must not exceed the organization's max_concurrent_sessions (${this.orgCap})`,
        );
      }
      await this.db.updateTable('orgs').set({ default_project_max_concurrent_sessions: value }).where('id', '=', orgId).execute();
      this.changes.upsert(orgId, 'org_limits', orgId);
    }
    return this.orgLimits(orgId);
  }
}
