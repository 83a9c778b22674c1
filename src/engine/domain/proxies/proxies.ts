/**
 * Proxies of a project: custom ones (host, port, credentials, a TLS-intercepting proxy's CA
 * bundle; password and bundle encrypted, never returned) and
 * managed ones served by an operator-configured upstream provider. Soft-deleted, renamable,
 * addressable by id (names are not unique). `upstreamOf` is the single place that turns a
 * record into the upstream the forwarder and checks connect to.
 */
import type { Kysely } from 'kysely';
import type { Database, ProxyTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { checkDisplayName } from '../display-name.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { parseBypassHosts, parseProxyConfig, type ProxyType } from './proxy-config.js';
import { caCertificatesOf } from './ca-bundle.js';
import { resolveProvider, type ManagedProxyType, type ProxyProviderConfig } from './proxy-providers.js';
import type { Upstream } from '../../runtime/proxy-forwarder/upstream.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import type { Static } from '@sinclair/typebox';
import type { ProxyCreateSchema } from '../../../shared/wire/identity.js';

export type ProxyRow = ProxyTable;

export interface ProxyDto {
  id: string;
  type: ProxyType;
  name?: string;
  protocol: 'http' | 'https';
  bypass_hosts: string[];
  config: Record<string, unknown>;
  status?: 'available' | 'unavailable';
  status_reason?: string;
  ip_address?: string;
  last_checked?: string;
}

/** The body of POST /proxies, as validated. */
export type ProxyCreate = Static<typeof ProxyCreateSchema>;

const passwordAad = (id: string): string => `proxy:${id}:password`;
const caBundleAad = (id: string): string => `proxy:${id}:ca_bundle`;

export class Proxies {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
    private readonly providers: ProxyProviderConfig,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  dto(row: ProxyRow): ProxyDto {
    const config = JSON.parse(row.config) as Record<string, unknown>;
    if (row.type === 'custom') {
      config.has_password = row.password_enc !== null;
      config.has_ca_bundle = row.ca_bundle_enc !== null;
    }
    const dto: ProxyDto = { id: row.id, type: row.type, protocol: row.protocol, bypass_hosts: JSON.parse(row.bypass_hosts) as string[], config };
    if (row.name !== null) dto.name = row.name;
    if (row.status !== null) dto.status = row.status;
    if (row.status === 'unavailable' && row.status_reason) dto.status_reason = row.status_reason;
    if (row.ip_address !== null) dto.ip_address = row.ip_address;
    if (row.last_checked !== null) dto.last_checked = row.last_checked;
    return dto;
  }

  async create(orgId: string, projectId: string, body: ProxyCreate): Promise<ProxyRow> {
    const parsed = parseProxyConfig(body.type, body.config);
    const bypass = parseBypassHosts(body.bypass_hosts);
    if (body.type !== 'custom' && !resolveProvider(this.providers, body.type, parsed.config as Record<string, string>)) {
      const where = parsed.config.country ? ` for country ${String(parsed.config.country)}` : '';
      throw DomainError.unprocessable(
        `no upstream provider is configured for ${body.type} proxies${where}: the operator must configure one (BROWSERDECK_PROXY_PROVIDERS or <dataDir>/proxy-providers.json), or use a custom proxy`,
        'proxy_provider_not_configured',
      );
    }
    const id = newId();
    const now = this.clock.now().toISOString();
    const row: ProxyRow = {
      id,
      org_id: orgId,
      project_id: projectId,
      name: body.name !== undefined ? checkDisplayName(body.name) : null,
      type: body.type,
      protocol: body.protocol ?? 'http',
      config: JSON.stringify(parsed.config),
      host: parsed.host,
      password_enc: parsed.password ? this.cipher.encrypt(parsed.password, passwordAad(id)) : null,
      ca_bundle_enc: parsed.caBundle ? this.cipher.encrypt(parsed.caBundle, caBundleAad(id)) : null,
      bypass_hosts: JSON.stringify(bypass),
      status: null,
      status_reason: null,
      ip_address: null,
      last_checked: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.db.insertInto('proxies').values(row).execute();
    this.changes.upsert(row.org_id, 'proxy', row.id, row.project_id);
    return row;
  }

  async get(projectId: string, id: string): Promise<ProxyRow> {
    const row = await this.db
      .selectFrom('proxies')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw DomainError.notFound('proxy', id);
    return row;
  }

  /** Resolves a `{id?, name?}` selector; a name must match exactly one active proxy (else 400). */
  async select(projectId: string, sel: { id?: string; name?: string }): Promise<ProxyRow> {
    if (sel.id) return this.get(projectId, sel.id);
    if (!sel.name) throw DomainError.invalidField('proxy', 'give id or name');
    const rows = await this.db
      .selectFrom('proxies')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('name', '=', sel.name)
      .where('deleted_at', 'is', null)
      .limit(2)
      .execute();
    if (rows.length === 0) throw DomainError.notFound('proxy', sel.name);
    if (rows.length > 1) throw DomainError.badRequest(`proxy name '${sel.name}' is ambiguous: more than one proxy has it; select by id`);
    return rows[0];
  }

  async list(projectId: string, q: { offset: number; limit: number; name?: string; query?: string }): Promise<ProxyRow[]> {
    let sel = this.db.selectFrom('proxies').selectAll().where('project_id', '=', projectId).where('deleted_at', 'is', null);
    if (q.name !== undefined) sel = sel.where('name', '=', q.name);
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) =>
        eb.or([eb('id', '=', needle), containsInsensitive('name', needle), containsInsensitive('host', needle), containsInsensitive('ip_address', needle)]),
      );
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async rename(projectId: string, id: string, name: string): Promise<ProxyRow> {
    const row = await this.get(projectId, id);
    const changes = { name: checkDisplayName(name), updated_at: this.clock.now().toISOString() };
    await this.db.updateTable('proxies').set(changes).where('id', '=', row.id).execute();
    this.changes.upsert(row.org_id, 'proxy', row.id, row.project_id);
    return { ...row, ...changes };
  }

  async delete(projectId: string, id: string): Promise<void> {
    const row = await this.get(projectId, id);
    await this.db.updateTable('proxies').set({ deleted_at: this.clock.now().toISOString() }).where('id', '=', row.id).execute();
    this.changes.delete(row.org_id, 'proxy', row.id, row.project_id);
  }

  /** Calls `fn` with the id of every proxy deleted from now on (on any node); returns the unsubscribe. */
  onDeleted(fn: (id: string) => void): () => void {
    return this.changes.on(({ event }) => {
      if (event.resource === 'proxy' && event.type === 'delete') fn(event.id);
    });
  }

  async recordCheck(
    row: ProxyRow,
    result: { status: 'available' | 'unavailable'; status_reason: string | null; ip_address: string | null; last_checked: string },
  ): Promise<ProxyRow> {
    await this.db.updateTable('proxies').set(result).where('id', '=', row.id).execute();
    this.changes.upsert(row.org_id, 'proxy', row.id, row.project_id);
    return { ...row, ...result };
  }

  /**
   * The CA certificates (base64 DER) a session using this proxy must trust: a custom proxy's
   * `ca_bundle`, else none.
   */
  caCertificatesOf(row: ProxyRow): string[] {
    const pem = this.caBundleOf(row);
    return pem ? caCertificatesOf(pem) : [];
  }

  /** A custom proxy's `ca_bundle` as stored (validated PEM), decrypted; undefined without one. */
  caBundleOf(row: ProxyRow): string | undefined {
    return row.ca_bundle_enc ? this.cipher.decrypt(row.ca_bundle_enc, caBundleAad(row.id)) : undefined;
  }

  /** The upstream proxy this record routes through (decrypting a custom password). */
  upstreamOf(row: ProxyRow): Upstream {
    const config = JSON.parse(row.config) as Record<string, string>;
    if (row.type === 'custom') {
      return {
        protocol: row.protocol,
        host: config.host,
        port: Number(config.port),
        username: config.username || undefined,
        password: row.password_enc ? this.cipher.decrypt(row.password_enc, passwordAad(row.id)) : undefined,
      };
    }
    const upstream = resolveProvider(this.providers, row.type as ManagedProxyType, config);
    if (!upstream) throw DomainError.unprocessable(`the upstream provider for ${row.type} proxies is no longer configured`, 'proxy_provider_not_configured');
    return upstream;
  }
}
