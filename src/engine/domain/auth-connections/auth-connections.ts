/**
 * Auth connection records: one per profile + domain in a project. Holds the configuration
 * (login URL, allowed domains, credential reference, health checks, re-auth, proxy), the
 * authentication status, what the last successful login required (to answer `can_reauth`
 * honestly), and the snapshot of the most recent flow.
 */
import type { Kysely } from 'kysely';
import type { Database, AuthConnectionTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import { HEALTH_CHECK_MAX_SECONDS } from '../../../shared/wire/auth-connections.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import { normalizeDomain } from '../credentials/credentials.js';
import type { FlowView } from './flow-state.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

export type ConnectionRow = AuthConnectionTable;

export interface CredentialRef {
  name?: string;
  provider?: string;
  path?: string;
  auto?: boolean;
}

export interface ConnectionConfig {
  allowed_domains?: string[];
  auto_reauth?: boolean;
  browser_telemetry?: Record<string, unknown> | null;
  credential?: CredentialRef;
  health_check_interval?: number;
  health_checks?: boolean;
  login_url?: string;
  record_session?: boolean;
  save_credentials?: boolean;
}

export interface Scope {
  orgId: string;
  projectId: string;
}

const PROFILE_NAME = /^[A-Za-z0-9._-]{1,255}$/;

export function checkLoginUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw DomainError.invalidField('login_url', 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw DomainError.invalidField('login_url', 'must be an http or https URL');
  return u.toString();
}

function checkCredentialRef(c: CredentialRef): CredentialRef {
  if (!c.name && !c.provider && !c.auto)
    throw DomainError.invalidField(
      'credential',
      'give name (a stored credential), provider with path or auto, or auto: true (the enabled credential providers by priority)',
    );
  if (c.name && (c.provider || c.auto))
    throw DomainError.invalidField('credential', 'give either name (a stored credential) or provider/auto (credential providers), not both');
  if (c.path && !c.provider) throw DomainError.invalidField('credential.path', 'a Vault/Item path needs the provider it is in');
  if (c.provider && !c.path && !c.auto) throw DomainError.invalidField('credential', 'an external provider needs path or auto: true');
  return Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as CredentialRef;
}

/** `health_check_interval` when a connection does not set one, and the largest accepted (seconds). */
export const HEALTH_CHECK_DEFAULT_SECONDS = 3600;
export { HEALTH_CHECK_MAX_SECONDS };

export class AuthConnections {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly limits: { minInterval: number },
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  private interval(v: number | undefined): number {
    const n = v ?? HEALTH_CHECK_DEFAULT_SECONDS;
    if (!Number.isInteger(n) || n < this.limits.minInterval || n > HEALTH_CHECK_MAX_SECONDS)
      throw DomainError.invalidField('health_check_interval', `must be an integer from ${this.limits.minInterval} to ${HEALTH_CHECK_MAX_SECONDS} seconds`);
    return n;
  }

  async create(
    scope: Scope,
    body: ConnectionConfig & { domain: string; profile_name: string; proxy_id?: string | null; profile_id: string | null },
  ): Promise<ConnectionRow> {
    const domain = normalizeDomain(body.domain);
    if (!PROFILE_NAME.test(body.profile_name)) throw DomainError.invalidField('profile_name', 'must be 1 to 255 characters of A-Z a-z 0-9 . _ -');
    const existing = await this.db
      .selectFrom('auth_connections')
      .select('id')
      .where('project_id', '=', scope.projectId)
      .where('profile_name', '=', body.profile_name)
      .where('domain', '=', domain)
      .executeTakeFirst();
    if (existing)
      throw DomainError.conflict(
        `an auth connection for profile '${body.profile_name}' and domain '${domain}' already exists (${existing.id})`,
        'auth_connection_exists',
      );
    const now = this.clock.now().toISOString();
    const row: ConnectionRow = {
      id: newId(),
      org_id: scope.orgId,
      project_id: scope.projectId,
      domain,
      profile_name: body.profile_name,
      profile_id: body.profile_id,
      login_url: body.login_url ? checkLoginUrl(body.login_url) : null,
      allowed_domains: JSON.stringify((body.allowed_domains ?? []).map((d, i) => normalizeDomain(d, `allowed_domains.${i}`))),
      credential: body.credential ? JSON.stringify(checkCredentialRef(body.credential)) : null,
      health_checks: body.health_checks === false ? 0 : 1,
      health_check_interval: this.interval(body.health_check_interval),
      auto_reauth: body.auto_reauth === false ? 0 : 1,
      save_credentials: body.save_credentials === false ? 0 : 1,
      record_session: body.record_session ? 1 : 0,
      proxy_id: body.proxy_id ?? null,
      browser_telemetry: body.browser_telemetry ? JSON.stringify(body.browser_telemetry) : null,
      status: 'NEEDS_AUTH',
      requirements: null,
      post_login_url: null,
      sso_provider: null,
      flow: null,
      last_auth_check_at: null,
      last_login_at: null,
      next_check_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('auth_connections').values(row).execute();
    this.changes.upsert(row.org_id, 'auth_connection', row.id, row.project_id);
    return row;
  }

  async get(scope: Scope, id: string): Promise<ConnectionRow> {
    const row = await this.db.selectFrom('auth_connections').selectAll().where('project_id', '=', scope.projectId).where('id', '=', id).executeTakeFirst();
    if (!row) throw DomainError.notFound('auth connection', id);
    return row;
  }

  byId(id: string): Promise<ConnectionRow | undefined> {
    return this.db.selectFrom('auth_connections').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(scope: Scope, q: { offset: number; limit: number; domain?: string; profile_name?: string; query?: string }): Promise<ConnectionRow[]> {
    let sel = this.db.selectFrom('auth_connections').selectAll().where('project_id', '=', scope.projectId);
    if (q.domain !== undefined) sel = sel.where('domain', '=', q.domain.trim().toLowerCase());
    if (q.profile_name !== undefined) sel = sel.where('profile_name', '=', q.profile_name);
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) => eb.or([eb('id', '=', needle), containsInsensitive('domain', needle), containsInsensitive('profile_name', needle)]));
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  /** Only the fields given change; `login_url: ""` clears it. */
  async patch(row: ConnectionRow, body: ConnectionConfig & { proxy_id?: string | null }): Promise<ConnectionRow> {
    const c: Partial<ConnectionRow> = {};
    if (body.allowed_domains !== undefined) c.allowed_domains = JSON.stringify(body.allowed_domains.map((d, i) => normalizeDomain(d, `allowed_domains.${i}`)));
    if (body.auto_reauth !== undefined) c.auto_reauth = body.auto_reauth ? 1 : 0;
    if (body.browser_telemetry !== undefined) c.browser_telemetry = body.browser_telemetry ? JSON.stringify(body.browser_telemetry) : null;
    if (body.credential !== undefined) c.credential = JSON.stringify(checkCredentialRef(body.credential));
    if (body.health_check_interval !== undefined) {
      c.health_check_interval = this.interval(body.health_check_interval);
      c.next_check_at = null; // rescheduled from the new interval
    }
    if (body.health_checks !== undefined) c.health_checks = body.health_checks ? 1 : 0;
    if (body.login_url !== undefined) c.login_url = body.login_url === '' ? null : checkLoginUrl(body.login_url);
    if (body.record_session !== undefined) c.record_session = body.record_session ? 1 : 0;
    if (body.save_credentials !== undefined) c.save_credentials = body.save_credentials ? 1 : 0;
    if (body.proxy_id !== undefined) c.proxy_id = body.proxy_id;
    if (Object.keys(c).length === 0) return row;
    return this.update(row.id, c, row);
  }

  async update(id: string, c: Partial<ConnectionRow>, base?: ConnectionRow): Promise<ConnectionRow> {
    c.updated_at = this.clock.now().toISOString();
    await this.db.updateTable('auth_connections').set(c).where('id', '=', id).execute();
    const row = base ? { ...base, ...c } : ((await this.byId(id)) as ConnectionRow);
    if (row) this.changes.upsert(row.org_id, 'auth_connection', id, row.project_id);
    return row;
  }

  async saveFlow(id: string, flow: FlowView): Promise<void> {
    await this.db
      .updateTable('auth_connections')
      .set({ flow: JSON.stringify(flow) })
      .where('id', '=', id)
      .execute();
    // A login flow's progress shows on the connection: consoles refetch it.
    const row = await this.byId(id);
    if (row) this.changes.upsert(row.org_id, 'auth_connection', id, row.project_id);
  }

  async delete(row: ConnectionRow): Promise<void> {
    await this.db.deleteFrom('auth_timeline').where('connection_id', '=', row.id).execute();
    await this.db.deleteFrom('auth_connections').where('id', '=', row.id).execute();
    this.changes.delete(row.org_id, 'auth_connection', row.id, row.project_id);
  }

  /** Connections whose health check is due (engine-wide; the scheduler filters running flows). */
  async due(nowIso: string): Promise<ConnectionRow[]> {
    return this.db
      .selectFrom('auth_connections')
      .selectAll()
      .where('health_checks', '=', 1)
      .where((eb) => eb.or([eb('next_check_at', 'is', null), eb('next_check_at', '<=', nowIso)]))
      .limit(20)
      .execute();
  }
}
