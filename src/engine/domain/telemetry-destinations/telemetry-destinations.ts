/**
 * OTLP telemetry destination records of an organization (`/telemetry/destinations`, Kernel §12).
 * Org-scoped: every lookup is filtered by org id. Headers (ingestion keys) are encrypted with the
 * engine's SecretCipher, bound to the destination id, and never part of a DTO (names only). A
 * destination bound to a running session or to a pool cannot be renamed or deleted (409).
 * The delivery health columns are written by `recordOutcome` (the sessions' exporters).
 */
import { sql, type Kysely } from 'kysely';
import type { Database, TelemetryDestinationTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import { newId } from '../ids.js';
import { contains, containsInsensitive, isUniqueViolation } from '../../store/sql-helpers.js';
import type { OtlpDestination, OtlpDestinationCreate, OtlpDestinationPatch } from '../../../shared/wire/telemetry-destinations.js';
import { checkDestinationName, checkEndpoint, checkHeaders, hiddenHeaders, patchHeaders } from './destination-rules.js';

export type DestinationRow = TelemetryDestinationTable;

const headersAad = (id: string): string => `telemetry_destination:${id}:headers`;

/** Checks an endpoint against the operator's host policy: a refusal message, or undefined. */
export type EndpointPolicy = (endpoint: string) => Promise<string | undefined>;

export class TelemetryDestinations {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
    private readonly changes: ResourceChanges,
    private readonly policy: EndpointPolicy,
  ) {}

  dto(row: DestinationRow): OtlpDestination {
    const out: OtlpDestination = {
      id: row.id,
      name: row.name,
      endpoint: row.endpoint,
      headers: hiddenHeaders(this.headersOf(row)),
      created_at: row.created_at,
      updated_at: row.updated_at,
      consecutive_failures: row.consecutive_failures,
    };
    if (row.description !== null) out.description = row.description;
    if (row.last_error !== null) out.last_error = row.last_error;
    if (row.last_error_at !== null) out.last_error_at = row.last_error_at;
    if (row.last_success_at !== null) out.last_success_at = row.last_success_at;
    return out;
  }

  /** The decrypted headers: engine-internal (the exporter); never in a response or log. */
  headersOf(row: DestinationRow): Record<string, string> {
    return this.cipher.decryptJson<Record<string, string>>(row.headers_enc, headersAad(row.id));
  }

  private async checkedEndpoint(endpoint: string): Promise<string> {
    const e = checkEndpoint(endpoint);
    const refused = await this.policy(e);
    if (refused) throw DomainError.unprocessable(`endpoint: ${refused}`, 'destination_not_allowed');
    return e;
  }

  private nameTaken(name: string): DomainError {
    return DomainError.conflict(`a telemetry destination named '${name}' already exists`, 'destination_name_taken');
  }

  async create(orgId: string, body: OtlpDestinationCreate): Promise<DestinationRow> {
    const name = checkDestinationName(body.name);
    const headers = checkHeaders(body.headers);
    const endpoint = await this.checkedEndpoint(body.endpoint);
    const id = newId();
    const now = this.clock.now().toISOString();
    const row: DestinationRow = {
      id,
      org_id: orgId,
      name,
      name_key: name.toLowerCase(),
      endpoint,
      description: body.description ?? null,
      headers_enc: this.cipher.encryptJson(headers, headersAad(id)),
      consecutive_failures: 0,
      last_error: null,
      last_error_at: null,
      last_success_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.insertInto('telemetry_destinations').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw this.nameTaken(name);
      throw err;
    }
    this.changes.upsert(orgId, 'telemetry_destination', id);
    return row;
  }

  /** By id, else by name (case-insensitive), within the org. */
  async find(orgId: string, idOrName: string): Promise<DestinationRow | undefined> {
    const base = this.db.selectFrom('telemetry_destinations').selectAll().where('org_id', '=', orgId);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name_key', '=', idOrName.toLowerCase()).executeTakeFirst());
  }

  async get(orgId: string, idOrName: string): Promise<DestinationRow> {
    const row = await this.find(orgId, idOrName);
    if (!row) throw DomainError.notFound('telemetry destination', idOrName);
    return row;
  }

  /** Any org's destination by id (the exporter of a session, which already checked its org at bind). */
  async byId(id: string): Promise<DestinationRow | undefined> {
    return this.db.selectFrom('telemetry_destinations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(orgId: string, q: { offset: number; limit: number; name?: string; query?: string }): Promise<DestinationRow[]> {
    let sel = this.db.selectFrom('telemetry_destinations').selectAll().where('org_id', '=', orgId);
    if (q.name !== undefined) sel = sel.where('name_key', '=', q.name.toLowerCase());
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) => eb.or([eb('id', '=', needle), contains('name_key', needle.toLowerCase()), containsInsensitive('endpoint', needle)]));
    }
    return sel
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async update(orgId: string, idOrName: string, patch: OtlpDestinationPatch): Promise<DestinationRow> {
    const row = await this.get(orgId, idOrName);
    const c: Partial<DestinationRow> = {};
    if (patch.name !== undefined && patch.name !== row.name) {
      const name = checkDestinationName(patch.name);
      await this.assertUnbound(row, 'renamed');
      c.name = name;
      c.name_key = name.toLowerCase();
    }
    if (patch.endpoint !== undefined) c.endpoint = await this.checkedEndpoint(patch.endpoint);
    if (patch.description !== undefined) c.description = patch.description;
    if (patch.headers !== undefined) c.headers_enc = this.cipher.encryptJson(patchHeaders(this.headersOf(row), patch.headers), headersAad(row.id));
    if (Object.keys(c).length === 0) return row;
    c.updated_at = this.clock.now().toISOString();
    try {
      await this.db.updateTable('telemetry_destinations').set(c).where('id', '=', row.id).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw this.nameTaken(c.name ?? row.name);
      throw err;
    }
    this.changes.upsert(orgId, 'telemetry_destination', row.id);
    return { ...row, ...c };
  }

  async delete(orgId: string, idOrName: string): Promise<void> {
    const row = await this.get(orgId, idOrName);
    await this.assertUnbound(row, 'deleted');
    await this.db.deleteFrom('telemetry_destinations').where('id', '=', row.id).execute();
    this.changes.delete(orgId, 'telemetry_destination', row.id);
  }

  /** 409 while a running session exports to it or a pool's browsers would. */
  private async assertUnbound(row: DestinationRow, what: string): Promise<void> {
    // The stored telemetry JSON names a bound destination as `"destination":"<id>"` (session-telemetry-config.ts).
    const needle = `"destination":"${row.id}"`;
    const session = await this.db
      .selectFrom('browser_sessions')
      .select('id')
      .where('org_id', '=', row.org_id)
      .where('deleted_at', 'is', null)
      .where(contains('telemetry', needle))
      .executeTakeFirst();
    if (session)
      throw DomainError.conflict(`telemetry destination '${row.name}' cannot be ${what} while session ${session.id} exports to it`, 'destination_in_use');
    const pool = await this.db.selectFrom('browser_pools').select('id').where('org_id', '=', row.org_id).where(contains('config', needle)).executeTakeFirst();
    if (pool) throw DomainError.conflict(`telemetry destination '${row.name}' cannot be ${what} while pool ${pool.id} exports to it`, 'destination_in_use');
  }

  /**
   * One delivery's outcome: the one write of a batch. Answers the destination's org when its
   * health flipped (healthy ↔ failing), so the caller announces only those on the change feed.
   * Each write decides the flip by itself (UPDATE … RETURNING): exporters of several sessions, or
   * a closing export's last batch, may record outcomes of one destination at the same time.
   */
  async recordOutcome(id: string, outcome: { ok: true } | { ok: false; error: string }): Promise<string | undefined> {
    const now = this.clock.now().toISOString();
    if (outcome.ok) {
      const recovered = await this.db
        .updateTable('telemetry_destinations')
        .set({ consecutive_failures: 0, last_success_at: now })
        .where('id', '=', id)
        .where('consecutive_failures', '>', 0)
        .returning('org_id')
        .executeTakeFirst();
      if (recovered) return recovered.org_id;
      await this.db.updateTable('telemetry_destinations').set({ last_success_at: now }).where('id', '=', id).execute();
      return undefined;
    }
    const failed = await this.db
      .updateTable('telemetry_destinations')
      .set({ consecutive_failures: sql`consecutive_failures + 1`, last_error: outcome.error.slice(0, 1024), last_error_at: now })
      .where('id', '=', id)
      .returning(['org_id', 'consecutive_failures'])
      .executeTakeFirst();
    return failed && Number(failed.consecutive_failures) === 1 ? failed.org_id : undefined;
  }
}
