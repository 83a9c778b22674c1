/**
 * Credentials of a project: named sets of login values for one domain, plus an optional TOTP
 * secret. Values and the secret are encrypted with the engine's SecretCipher (bound to the
 * credential id) and never leave the engine through the API: responses carry only the value
 * names (`value_keys`) and, right after a secret was set, the current TOTP code.
 */
import type { Kysely } from 'kysely';
import type { Database, CredentialTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { checkDisplayName } from '../display-name.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { decodeBase32, normalizeBase32, totpFromSecret, type TotpCode } from './totp.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import type { Static } from '@sinclair/typebox';
import type { CredentialCreateSchema, CredentialPatchSchema } from '../../../shared/wire/identity.js';

export type CredentialRow = CredentialTable;
export type CredentialValues = Record<string, string>;

export interface CredentialDto {
  id: string;
  created_at: string;
  updated_at: string;
  domain: string;
  name: string;
  has_totp_secret: boolean;
  has_values: boolean;
  sso_provider: string | null;
  value_keys?: string[];
  totp_code?: string;
  totp_code_expires_at?: string;
}

/** The bodies of POST and PATCH /credentials, as validated. */
export type CredentialCreate = Static<typeof CredentialCreateSchema>;
export type CredentialPatch = Static<typeof CredentialPatchSchema>;

const valuesAad = (id: string): string => `credential:${id}:values`;
const totpAad = (id: string): string => `credential:${id}:totp`;

export function normalizeDomain(domain: string, field = 'domain'): string {
  let d = domain.trim().toLowerCase();
  // Accept a URL where a bare host is expected: people paste https://example.com/login.
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(d)) {
    try {
      d = new URL(d).hostname;
    } catch {
      throw DomainError.invalidField(field, 'must be a domain name');
    }
  }
  d = d.replace(/\.$/, '');
  if (!d || d.length > 253 || !/^[a-z0-9.:[\]_-]+$/.test(d)) throw DomainError.invalidField(field, 'must be a domain name');
  return d;
}

function checkTotpSecret(secret: string): string {
  const normalized = normalizeBase32(secret);
  let key: Buffer;
  try {
    key = decodeBase32(normalized);
  } catch (err) {
    throw DomainError.invalidField('totp_secret', `must be base32: ${(err as Error).message}`);
  }
  if (key.length < 10) throw DomainError.invalidField('totp_secret', 'is too short (at least 16 base32 characters)');
  return normalized;
}

export class Credentials {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  dto(row: CredentialRow, opts: { single?: boolean; totp?: TotpCode } = {}): CredentialDto {
    const keys = JSON.parse(row.value_keys) as string[];
    const dto: CredentialDto = {
      id: row.id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      domain: row.domain,
      name: row.name,
      has_totp_secret: row.totp_secret_enc !== null,
      has_values: keys.length > 0,
      sso_provider: row.sso_provider,
    };
    if (opts.single) dto.value_keys = keys;
    if (opts.totp) {
      dto.totp_code = opts.totp.code;
      dto.totp_code_expires_at = opts.totp.expiresAt.toISOString();
    }
    return dto;
  }

  private async assertNameFree(projectId: string, name: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('credentials').select('id').where('project_id', '=', projectId).where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a credential named '${name}' already exists`, 'credential_name_taken');
  }

  async create(orgId: string, projectId: string, body: CredentialCreate): Promise<CredentialDto> {
    const name = checkDisplayName(body.name);
    const domain = normalizeDomain(body.domain);
    const secret = body.totp_secret ? checkTotpSecret(body.totp_secret) : undefined;
    await this.assertNameFree(projectId, name);
    const id = newId();
    const now = this.clock.now().toISOString();
    const row: CredentialRow = {
      id,
      org_id: orgId,
      project_id: projectId,
      name,
      domain,
      values_enc: this.cipher.encryptJson(body.values, valuesAad(id)),
      value_keys: JSON.stringify(Object.keys(body.values).sort()),
      totp_secret_enc: secret ? this.cipher.encrypt(secret, totpAad(id)) : null,
      sso_provider: body.sso_provider ? body.sso_provider : null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('credentials').values(row).execute();
    this.changes.upsert(row.org_id, 'credential', row.id, row.project_id);
    return this.dto(row, { single: true, totp: secret ? totpFromSecret(secret, this.clock.now()) : undefined });
  }

  async find(projectId: string, idOrName: string): Promise<CredentialRow | undefined> {
    const base = this.db.selectFrom('credentials').selectAll().where('project_id', '=', projectId);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name', '=', idOrName).executeTakeFirst());
  }

  async get(projectId: string, idOrName: string): Promise<CredentialRow> {
    const row = await this.find(projectId, idOrName);
    if (!row) throw DomainError.notFound('credential', idOrName);
    return row;
  }

  async list(projectId: string, q: { offset: number; limit: number; domain?: string; query?: string }): Promise<CredentialRow[]> {
    let sel = this.db.selectFrom('credentials').selectAll().where('project_id', '=', projectId);
    if (q.domain !== undefined) sel = sel.where('domain', '=', q.domain.trim().toLowerCase());
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) => eb.or([eb('id', '=', needle), containsInsensitive('name', needle), containsInsensitive('domain', needle)]));
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async update(projectId: string, idOrName: string, patch: CredentialPatch): Promise<CredentialDto> {
    const row = await this.get(projectId, idOrName);
    const changes: Partial<CredentialRow> = {};
    if (patch.name !== undefined) {
      const name = checkDisplayName(patch.name);
      if (name !== row.name) await this.assertNameFree(projectId, name, row.id);
      changes.name = name;
    }
    if (patch.values !== undefined || patch.remove_value_keys !== undefined) {
      const values = this.valuesOf(row);
      // Removals first, so a key both removed and given keeps its new value.
      for (const k of patch.remove_value_keys ?? []) delete values[k];
      Object.assign(values, patch.values ?? {});
      changes.values_enc = this.cipher.encryptJson(values, valuesAad(row.id));
      changes.value_keys = JSON.stringify(Object.keys(values).sort());
    }
    if (patch.sso_provider !== undefined) changes.sso_provider = patch.sso_provider ? patch.sso_provider : null;
    let totp: TotpCode | undefined;
    if (patch.totp_secret !== undefined) {
      if (patch.totp_secret === '') changes.totp_secret_enc = null;
      else {
        const secret = checkTotpSecret(patch.totp_secret);
        changes.totp_secret_enc = this.cipher.encrypt(secret, totpAad(row.id));
        totp = totpFromSecret(secret, this.clock.now());
      }
    }
    if (Object.keys(changes).length === 0) return this.dto(row, { single: true });
    changes.updated_at = this.clock.now().toISOString();
    await this.db.updateTable('credentials').set(changes).where('id', '=', row.id).execute();
    this.changes.upsert(row.org_id, 'credential', row.id, row.project_id);
    return this.dto({ ...row, ...changes }, { single: true, totp });
  }

  async delete(projectId: string, idOrName: string): Promise<void> {
    const row = await this.get(projectId, idOrName);
    await this.db.deleteFrom('credentials').where('id', '=', row.id).execute();
    this.changes.delete(row.org_id, 'credential', row.id, row.project_id);
  }

  async totpCode(projectId: string, idOrName: string): Promise<{ code: string; expires_at: string }> {
    const row = await this.get(projectId, idOrName);
    const secret = this.totpSecretOf(row);
    if (!secret) throw DomainError.unprocessable(`credential '${row.name}' has no TOTP secret`, 'no_totp_secret');
    const t = totpFromSecret(secret, this.clock.now());
    return { code: t.code, expires_at: t.expiresAt.toISOString() };
  }

  /** Decrypted values: engine-internal (login flows); never put these in a response or log. */
  valuesOf(row: CredentialRow): CredentialValues {
    return this.cipher.decryptJson<CredentialValues>(row.values_enc, valuesAad(row.id));
  }

  totpSecretOf(row: CredentialRow): string | undefined {
    return row.totp_secret_enc ? this.cipher.decrypt(row.totp_secret_enc, totpAad(row.id)) : undefined;
  }

  /** Saves values captured by a successful login: merges into the named credential or creates it. */
  async saveCaptured(orgId: string, projectId: string, name: string, domain: string, values: CredentialValues): Promise<void> {
    if (Object.keys(values).length === 0) return;
    const existing = await this.db.selectFrom('credentials').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    if (existing) await this.update(projectId, existing.id, { values });
    else await this.create(orgId, projectId, { name, domain, values });
  }
}
