/**
 * Credential provider records of an organization (`/org/credential_providers`): name (unique
 * per org), type, enabled, priority, cache TTL, and the service account token — encrypted with
 * the engine's SecretCipher, bound to the provider id, and never part of any DTO. Every lookup
 * is scoped by org id, so one org's providers do not exist for another.
 */
import type { Kysely } from 'kysely';
import type { CredentialProviderTable, Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { DEFAULT_PROVIDER_CACHE_TTL_SECONDS } from '../../../shared/wire/credential-providers.js';
import { checkDisplayName } from '../display-name.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import type { Static } from '@sinclair/typebox';
import type { CredentialProviderCreateSchema, CredentialProviderPatchSchema } from '../../../shared/wire/credential-providers.js';

export type ProviderRow = CredentialProviderTable;
export const PROVIDER_TYPES = ['onepassword'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export interface ProviderDto {
  id: string;
  created_at: string;
  updated_at: string;
  enabled: boolean;
  name: string;
  priority: number;
  provider_type: ProviderType;
}

/** The bodies of POST and PATCH /org/credential_providers, as validated. */
export type ProviderCreate = Static<typeof CredentialProviderCreateSchema>;
export type ProviderPatch = Static<typeof CredentialProviderPatchSchema>;

const tokenAad = (id: string): string => `credential_provider:${id}:token`;
export const DEFAULT_CACHE_TTL_SECONDS = DEFAULT_PROVIDER_CACHE_TTL_SECONDS;

function checkType(t: string): ProviderType {
  if (!(PROVIDER_TYPES as readonly string[]).includes(t))
    throw DomainError.invalidField('provider_type', `must be one of: ${PROVIDER_TYPES.join(', ')} (got '${t}')`);
  return t as ProviderType;
}

function checkToken(token: string): string {
  const t = token.trim();
  if (!t) throw DomainError.invalidField('token', 'must not be empty');
  return t;
}

export class CredentialProviders {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  static dto(row: ProviderRow): ProviderDto {
    return {
      id: row.id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      enabled: row.enabled === 1,
      name: row.name,
      priority: row.priority,
      provider_type: row.provider_type as ProviderType,
    };
  }

  private async assertNameFree(orgId: string, name: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('credential_providers').select('id').where('org_id', '=', orgId).where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a credential provider named '${name}' already exists`, 'credential_provider_name_taken');
  }

  async create(orgId: string, body: ProviderCreate): Promise<ProviderRow> {
    const type = checkType(body.provider_type);
    const name = checkDisplayName(body.name);
    const token = checkToken(body.token);
    await this.assertNameFree(orgId, name);
    const id = newId();
    const now = this.clock.now().toISOString();
    const row: ProviderRow = {
      id,
      org_id: orgId,
      name,
      provider_type: type,
      token_enc: this.cipher.encrypt(token, tokenAad(id)),
      cache_ttl_seconds: body.cache_ttl_seconds ?? DEFAULT_CACHE_TTL_SECONDS,
      enabled: 1,
      priority: 0,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('credential_providers').values(row).execute();
    this.changes.upsert(row.org_id, 'credential_provider', row.id);
    return row;
  }

  /** By id, else by name, within the org. */
  async find(orgId: string, idOrName: string): Promise<ProviderRow | undefined> {
    const base = this.db.selectFrom('credential_providers').selectAll().where('org_id', '=', orgId);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name', '=', idOrName).executeTakeFirst());
  }

  async get(orgId: string, id: string): Promise<ProviderRow> {
    const row = await this.db.selectFrom('credential_providers').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    if (!row) throw DomainError.notFound('credential provider', id);
    return row;
  }

  async list(orgId: string, q: { offset: number; limit: number; query?: string }): Promise<ProviderRow[]> {
    let sel = this.db.selectFrom('credential_providers').selectAll().where('org_id', '=', orgId);
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) => eb.or([eb('id', '=', needle), containsInsensitive('name', needle)]));
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  /** The org's enabled providers in the order `credential: {auto: true}` asks them: priority (lower first), then name. */
  async enabledByPriority(orgId: string): Promise<ProviderRow[]> {
    return this.db
      .selectFrom('credential_providers')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('enabled', '=', 1)
      .orderBy('priority', 'asc')
      .orderBy('name', 'asc')
      .execute();
  }

  async update(orgId: string, id: string, patch: ProviderPatch): Promise<ProviderRow> {
    const row = await this.get(orgId, id);
    const c: Partial<ProviderRow> = {};
    if (patch.name !== undefined) {
      const name = checkDisplayName(patch.name);
      if (name !== row.name) await this.assertNameFree(orgId, name, row.id);
      c.name = name;
    }
    if (patch.token !== undefined) c.token_enc = this.cipher.encrypt(checkToken(patch.token), tokenAad(row.id));
    if (patch.cache_ttl_seconds !== undefined) c.cache_ttl_seconds = patch.cache_ttl_seconds;
    if (patch.enabled !== undefined) c.enabled = patch.enabled ? 1 : 0;
    if (patch.priority !== undefined) c.priority = patch.priority;
    if (Object.keys(c).length === 0) return row;
    c.updated_at = this.clock.now().toISOString();
    await this.db.updateTable('credential_providers').set(c).where('id', '=', row.id).execute();
    this.changes.upsert(row.org_id, 'credential_provider', row.id);
    return { ...row, ...c };
  }

  async delete(orgId: string, id: string): Promise<ProviderRow> {
    const row = await this.get(orgId, id);
    await this.db.deleteFrom('credential_providers').where('id', '=', row.id).execute();
    this.changes.delete(row.org_id, 'credential_provider', row.id);
    return row;
  }

  /** The decrypted token: engine-internal (provider adapters); never in a response or log. */
  tokenOf(row: ProviderRow): string {
    return this.cipher.decrypt(row.token_enc, tokenAad(row.id));
  }
}
