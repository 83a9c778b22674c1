/**
 * Managing API keys through the API: create, read, rename, soft-delete and rotate. Keys are
 * confined by `access.ts`: a project-scoped caller sees and manages only its own project's
 * keys and cannot mint org-wide ones. Deleting or rotating evicts the key from the
 * authentication cache so the change takes effect on this node at once; rotation never
 * lengthens the old key's life and never lets it outlive the grace period.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { AuthContext } from './auth-context.js';
import type { ApiKey, CreatedApiKey } from '../../../shared/wire/org.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { checkDisplayName } from '../display-name.js';
import type { ApiKeyAuthority } from './api-keys.js';
import type { Projects } from './projects.js';
import { apiKeyDto, findApiKeyRecord, listApiKeyRecords, type ApiKeyListQuery, type ApiKeyRecordRow } from './api-key-records.js';
import { requireApiKey, confinedProject } from './access.js';
import { nameKey } from '../../../shared/name-key.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

const DAY_MS = 86_400_000;
export const MAX_KEY_DAYS = 3650;
export const DEFAULT_ROTATION_GRACE_DAYS = 7;

export class ApiKeyAdmin {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly authority: ApiKeyAuthority,
    private readonly projects: Projects,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  async create(auth: AuthContext, input: { name: string; days_to_expire?: number | null; project_id?: string | null }): Promise<CreatedApiKey> {
    requireApiKey(auth);
    const name = checkDisplayName(input.name);
    const projectId = await this.projectForNewKey(auth, input.project_id);
    const lifetimeDays = input.days_to_expire ?? null;
    const { row, key } = await this.authority.issue({ orgId: auth.orgId, name, projectId, createdById: auth.userId, lifetimeDays });
    this.changes.upsert(auth.orgId, 'api_key', row.id, projectId);
    return { ...(await this.get(auth, row.id, false)), key };
  }

  async get(auth: AuthContext, id: string, includeDeleted: boolean): Promise<ApiKey> {
    return apiKeyDto(await this.record(auth, id, includeDeleted));
  }

  async list(auth: AuthContext, q: Omit<ApiKeyListQuery, 'projectId'>): Promise<ApiKey[]> {
    requireApiKey(auth);
    const rows = await listApiKeyRecords(this.db, auth.orgId, { ...q, projectId: confinedProject(auth) ?? undefined });
    return rows.map(apiKeyDto);
  }

  async rename(auth: AuthContext, id: string, rawName: string): Promise<ApiKey> {
    const r = await this.record(auth, id, false);
    const name = checkDisplayName(rawName);
    await this.db
      .updateTable('api_keys')
      .set({ name, name_key: nameKey(name) })
      .where('id', '=', r.id)
      .execute();
    this.changes.upsert(r.org_id, 'api_key', r.id, r.project_id);
    return this.get(auth, r.id, false);
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    const r = await this.record(auth, id, false);
    if (auth.userId === r.id) throw DomainError.conflict('an API key cannot delete itself; delete it with a different key', 'cannot_delete_own_key');
    await this.db.updateTable('api_keys').set({ deleted_at: this.clock.now().toISOString() }).where('id', '=', r.id).where('deleted_at', 'is', null).execute();
    this.authority.evict(r.key_hash);
    this.changes.delete(r.org_id, 'api_key', r.id, r.project_id);
  }

  /** Issues the successor (same name and project) and schedules the rotated key's expiry. */
  async rotate(auth: AuthContext, id: string, input: { days_to_expire?: number | null; expire_in_days?: number | null }): Promise<CreatedApiKey> {
    const old = await this.record(auth, id, false);
    const lifetimeDays = input.days_to_expire === undefined ? old.lifetime_days : input.days_to_expire;
    const { row, key } = await this.authority.issue({
      orgId: auth.orgId,
      name: old.name,
      projectId: old.project_id,
      createdById: auth.userId,
      lifetimeDays,
    });
    const graceDays = input.expire_in_days ?? DEFAULT_ROTATION_GRACE_DAYS;
    const graceEnd = new Date(this.clock.now().getTime() + graceDays * DAY_MS).toISOString();
    const oldEnd = old.expires_at && Date.parse(old.expires_at) < Date.parse(graceEnd) ? old.expires_at : graceEnd;
    await this.db.updateTable('api_keys').set({ expires_at: oldEnd }).where('id', '=', old.id).execute();
    this.authority.evict(old.key_hash);
    this.changes.upsert(old.org_id, 'api_key', old.id, old.project_id);
    this.changes.upsert(old.org_id, 'api_key', row.id, old.project_id);
    return { ...(await this.get(auth, row.id, false)), key };
  }

  /** Keys of a project that still authenticate (not deleted, not expired). */
  async liveKeysOf(projectId: string): Promise<number> {
    const now = this.clock.now().toISOString();
    const r = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  private async record(auth: AuthContext, id: string, includeDeleted: boolean): Promise<ApiKeyRecordRow> {
    requireApiKey(auth);
    const r = await findApiKeyRecord(this.db, auth.orgId, id, { includeDeleted, projectId: confinedProject(auth) ?? undefined });
    if (!r) throw DomainError.notFound('API key', id);
    return r;
  }

  /** Org-wide callers choose freely; a project-scoped caller can only mint keys for its own project. */
  private async projectForNewKey(auth: AuthContext, requested: string | null | undefined): Promise<string | null> {
    const own = confinedProject(auth);
    if (requested === undefined) return own;
    if (requested === null) {
      if (own) throw DomainError.forbidden('creating an org-wide API key needs an org-wide API key; this key is scoped to one project');
      return null;
    }
    const p = await this.projects.find(auth.orgId, requested);
    if (!p) throw new DomainError(404, 'project_not_found', `project '${requested}' not found`);
    if (own && p.id !== own) throw DomainError.forbidden('this API key is scoped to another project');
    return p.id;
  }
}
