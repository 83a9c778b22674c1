/**
 * Audit-log export destination records (`/audit-logs/export/destinations`, spec §13) of an
 * organization: created paused; activating sets the cursor to "now" (rows recorded while
 * paused are never exported); a PATCH that lost a race with another configuration change is a
 * 409 (compare-and-set on `version`); DELETE is a soft delete. Static credentials are encrypted
 * with the engine's SecretCipher, bound to the destination id, and never part of a DTO.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditExportDestinationTable, Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import type { AuditDestination, AuditDestinationCreate, AuditDestinationPatch } from '../../../shared/wire/audit-destinations.js';
import {
  checkBucket,
  checkCredentials,
  checkFormat,
  checkKmsKeyId,
  checkPrefix,
  checkRegion,
  checkRoleArn,
  checkStatus,
  checkType,
  type StaticCredentials,
} from './export-fields.js';
import { encodeExportCursor } from './export-window.js';

export type DestinationRow = AuditExportDestinationTable;

/**
 * A pause opens a gap at its time: rows recorded before it are still delivered (the exporter
 * stops at the gap), rows in it never. If the cursor has not yet passed an earlier gap, that
 * gap is extended instead (only the latest gap is kept).
 */
function paused(row: DestinationRow, now: string): Partial<DestinationRow> {
  if (row.cursor_at === null) return {};
  const earlierGapPending = row.gap_from !== null && row.gap_to !== null && row.cursor_at < row.gap_to;
  return { gap_from: earlierGapPending ? row.gap_from : now, gap_to: null };
}

/** The first activation starts at its time; a resume closes the gap there. */
function resumed(row: DestinationRow, now: string): Partial<DestinationRow> {
  if (row.cursor_at === null) return { cursor_at: now };
  return { gap_to: now };
}

const credentialsAad = (id: string): string => `audit_export_destination:${id}:credentials`;

export class AuditExportDestinations {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cipher: SecretCipher,
    /** `kernel_role_arn`: the operator's principal that assumes customers' roles. */
    private readonly principalArn: string,
  ) {}

  dto(row: DestinationRow): AuditDestination {
    return {
      id: row.id,
      type: 's3',
      format: 'jsonl.gz',
      bucket: row.bucket,
      prefix: row.prefix,
      region: row.region,
      role_arn: row.role_arn,
      kms_key_id: row.kms_key_id,
      status: row.status,
      external_id: row.external_id,
      kernel_role_arn: this.principalArn,
      consecutive_failures: row.consecutive_failures,
      last_error: row.last_error,
      last_error_at: row.last_error_at,
      last_success_at: row.last_success_at,
      next_attempt_at: row.next_attempt_at,
      last_exported_cursor: row.cursor_at ? encodeExportCursor(row.cursor_at) : null,
      has_credentials: row.credentials_enc !== null,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async create(orgId: string, body: AuditDestinationCreate): Promise<DestinationRow> {
    checkType(body.type);
    checkFormat(body.format);
    const id = newId();
    const now = this.clock.now().toISOString();
    const row: DestinationRow = {
      id,
      org_id: orgId,
      bucket: checkBucket(body.bucket),
      prefix: checkPrefix(body.prefix),
      region: checkRegion(body.region),
      role_arn: checkRoleArn(body.role_arn),
      kms_key_id: body.kms_key_id ? checkKmsKeyId(body.kms_key_id) : null,
      status: 'paused',
      // A new one per destination: recreating a destination issues a new external id.
      external_id: `bd-${randomBytes(16).toString('hex')}`,
      credentials_enc: body.credentials ? this.cipher.encryptJson(checkCredentials(body.credentials), credentialsAad(id)) : null,
      consecutive_failures: 0,
      last_error: null,
      last_error_at: null,
      last_success_at: null,
      next_attempt_at: null,
      cursor_at: null,
      gap_from: null,
      gap_to: null,
      version: 1,
      lease_node: null,
      lease_until: null,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('audit_export_destinations').values(row).execute();
    return row;
  }

  async get(orgId: string, id: string): Promise<DestinationRow> {
    const row = await this.db
      .selectFrom('audit_export_destinations')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw DomainError.notFound('audit log export destination', id);
    return row;
  }

  async list(orgId: string, page: { offset: number; limit: number }): Promise<DestinationRow[]> {
    return this.db
      .selectFrom('audit_export_destinations')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .offset(page.offset)
      .limit(page.limit + 1)
      .execute();
  }

  async update(orgId: string, id: string, patch: AuditDestinationPatch): Promise<DestinationRow> {
    return this.applyPatch(await this.get(orgId, id), patch);
  }

  /** The PATCH on the state `row` was read in; 409 if the destination changed since. */
  async applyPatch(row: DestinationRow, patch: AuditDestinationPatch): Promise<DestinationRow> {
    const c: Partial<DestinationRow> = {};
    if (patch.bucket != null) c.bucket = checkBucket(patch.bucket);
    if (patch.prefix != null) c.prefix = checkPrefix(patch.prefix);
    if (patch.region != null) c.region = checkRegion(patch.region);
    if (patch.role_arn != null) c.role_arn = checkRoleArn(patch.role_arn);
    if (patch.kms_key_id != null) c.kms_key_id = checkKmsKeyId(patch.kms_key_id);
    if (patch.credentials !== undefined) {
      c.credentials_enc = patch.credentials === null ? null : this.cipher.encryptJson(checkCredentials(patch.credentials), credentialsAad(row.id));
    }
    const now = this.clock.now().toISOString();
    if (patch.status != null) {
      const status = checkStatus(patch.status);
      if (status !== row.status) {
        c.status = status;
        c.next_attempt_at = null;
        Object.assign(c, status === 'active' ? resumed(row, now) : paused(row, now));
      }
    }
    if (Object.keys(c).length === 0) return row;
    c.updated_at = now;
    c.version = row.version + 1;
    const res = await this.db
      .updateTable('audit_export_destinations')
      .set(c)
      .where('id', '=', row.id)
      .where('version', '=', row.version)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      throw DomainError.conflict('the destination changed concurrently; read it again and retry', 'concurrent_modification');
    }
    return { ...row, ...c };
  }

  async delete(orgId: string, id: string): Promise<void> {
    const row = await this.get(orgId, id);
    const now = this.clock.now().toISOString();
    // Soft: the row stays (its lease holder's commit then finds it deleted); credentials go now.
    await this.db
      .updateTable('audit_export_destinations')
      .set({ deleted_at: now, updated_at: now, credentials_enc: null, version: row.version + 1 })
      .where('id', '=', row.id)
      .execute();
  }

  /** The stored static credentials: engine-internal (deliveries); never in a response or log. */
  credentialsOf(row: DestinationRow): StaticCredentials | undefined {
    return row.credentials_enc ? this.cipher.decryptJson<StaticCredentials>(row.credentials_enc, credentialsAad(row.id)) : undefined;
  }
}
