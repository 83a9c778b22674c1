/**
 * Uploaded browser extensions of a project: metadata in the database, the uploaded zip as is
 * under `<dataDir>/extensions/<id>.zip` (its sha256 is the `checksum`). Addressable by id or
 * name; names are optional, `[A-Za-z0-9._-]{1,255}`, unique per project. Sessions and pools
 * reference extensions by selector and unpack a private copy at launch, so deleting one never
 * disturbs a running browser.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database, ExtensionTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { Extension } from '../../../shared/wire/extensions.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import { inspectExtensionZip } from './extension-archive.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

export type ExtensionRow = ExtensionTable;

export interface Scope {
  orgId: string;
  projectId: string;
}

/** A staged upload: the file (removed by the caller afterwards if it is still there), its sha256 and size. */
export interface StagedZip {
  file: string;
  checksum: string | null;
  size: number;
}

const NAME = /^[A-Za-z0-9._-]{1,255}$/;

export function validateExtensionName(name: string, field = 'name'): string {
  if (!NAME.test(name) || name === '.' || name === '..')
    throw DomainError.invalidField(field, 'must be 1 to 255 characters of A-Z a-z 0-9 . _ - (not . or ..)');
  return name;
}

/** A stored extension's name must also stay addressable: GET /extensions/from_chrome_store is a route of its own. */
export function validateStoredExtensionName(name: string): string {
  validateExtensionName(name);
  if (name === 'from_chrome_store')
    throw DomainError.invalidField('name', "'from_chrome_store' is reserved (GET /extensions/from_chrome_store is the Web Store route)");
  return name;
}

export function extensionDto(r: ExtensionRow): Extension {
  return { id: r.id, created_at: r.created_at, size_bytes: Number(r.size_bytes), checksum: r.checksum, last_used_at: r.last_used_at, name: r.name };
}

export class Extensions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    readonly root: string,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  zipPath(id: string): string {
    return path.join(this.root, `${id}.zip`);
  }

  /** Where uploads are written before they are checked (same filesystem: moved by rename). */
  async stagingFile(): Promise<string> {
    const dir = path.join(this.root, '.uploads');
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    return path.join(dir, `${newId()}.zip`);
  }

  private async assertNameFree(scope: Scope, name: string): Promise<void> {
    const hit = await this.db.selectFrom('extensions').select('id').where('project_id', '=', scope.projectId).where('name', '=', name).executeTakeFirst();
    if (hit) throw DomainError.conflict(`an extension named '${name}' already exists in this project`, 'extension_name_taken');
  }

  /** Checks the staged zip (a real zip with a manifest.json) and keeps it as a new extension. */
  async create(scope: Scope, zip: StagedZip, name?: string): Promise<ExtensionRow> {
    if (name !== undefined) {
      validateStoredExtensionName(name);
      await this.assertNameFree(scope, name);
    }
    await inspectExtensionZip(zip.file, 'file');
    const row: ExtensionRow = {
      id: newId(),
      org_id: scope.orgId,
      project_id: scope.projectId,
      name: name ?? null,
      size_bytes: zip.size,
      checksum: zip.checksum,
      created_at: this.clock.now().toISOString(),
      last_used_at: null,
    };
    await fsp.mkdir(this.root, { recursive: true, mode: 0o700 });
    await fsp.rename(zip.file, this.zipPath(row.id));
    try {
      await this.db.insertInto('extensions').values(row).execute();
    } catch (e) {
      await fsp.rm(this.zipPath(row.id), { force: true });
      // The unique index settles a race between two uploads of the same name.
      if (name !== undefined && (await this.find(scope, name)))
        throw DomainError.conflict(`an extension named '${name}' already exists in this project`, 'extension_name_taken');
      throw e;
    }
    this.changes.upsert(row.org_id, 'extension', row.id, row.project_id);
    return row;
  }

  async find(scope: Scope, idOrName: string): Promise<ExtensionRow | undefined> {
    const base = this.db.selectFrom('extensions').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
    return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name', '=', idOrName).executeTakeFirst());
  }

  async get(scope: Scope, idOrName: string): Promise<ExtensionRow> {
    const r = await this.find(scope, idOrName);
    if (!r) throw new DomainError(404, 'extension_not_found', `extension '${idOrName}' not found`);
    return r;
  }

  async list(scope: Scope, q: { offset: number; limit: number; name?: string; query?: string }): Promise<ExtensionRow[]> {
    let sel = this.db.selectFrom('extensions').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
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

  async delete(scope: Scope, idOrName: string): Promise<void> {
    const r = await this.get(scope, idOrName);
    await this.db.deleteFrom('extensions').where('id', '=', r.id).execute();
    this.changes.delete(r.org_id, 'extension', r.id, r.project_id);
    await fsp.rm(this.zipPath(r.id), { force: true });
  }

  async countInProject(projectId: string): Promise<number> {
    const r = await this.db
      .selectFrom('extensions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Stamps last_used_at (a browser is launched with these extensions). */
  async touch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('extensions').set({ last_used_at: this.clock.now().toISOString() }).where('id', 'in', ids).execute();
  }
}
