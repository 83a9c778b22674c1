/**
 * The sessions' and pools' hook into extensions (`services.extensions`): resolve the
 * `extensions: [{id}|{name}]` option of a session or pool in the caller's project (400 for a
 * bad selector, 404 naming an unknown one), and unpack resolved extensions into a session's own
 * directory for Chromium's --load-extension. Every session gets its own copy, so a browser
 * never sees another session's changes and deleting an extension never disturbs one.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { unpackExtension } from './extension-archive.js';
import type { ExtensionRow, Extensions, Scope } from './extensions.js';

/** More would make a command line (and a browser) no one wants; Kernel's own limit is lower. */
export const MAX_EXTENSIONS_PER_SESSION = 20;

export interface ExtensionSelector {
  id?: string;
  name?: string;
}

export interface ExtensionService {
  readonly extensions: Extensions;
  /** The extensions a selector list names, in order, without duplicates; stamps last_used_at when `use`. */
  resolve(scope: Scope, selectors: ExtensionSelector[], opts?: { field?: string; use?: boolean }): Promise<ExtensionRow[]>;
  /** Unpacks each into `<dir>/stored/<id>/`; returns the directories to load. */
  unpackInto(rows: ExtensionRow[], dir: string): Promise<string[]>;
}

export function extensionService(extensions: Extensions): ExtensionService {
  return {
    extensions,
    async resolve(scope, selectors, opts = {}) {
      const field = opts.field ?? 'extensions';
      if (selectors.length > MAX_EXTENSIONS_PER_SESSION) throw DomainError.invalidField(field, `at most ${MAX_EXTENSIONS_PER_SESSION} extensions`);
      const rows: ExtensionRow[] = [];
      for (const [i, s] of selectors.entries()) {
        if (!s.id && !s.name) throw DomainError.invalidField(`${field}[${i}]`, 'give the extension id or name');
        if (s.id && s.name) throw DomainError.invalidField(`${field}[${i}]`, 'give either id or name, not both');
        const key = (s.id || s.name) as string;
        const row = await extensions.find(scope, key);
        if (!row)
          throw new DomainError(
            404,
            'extension_not_found',
            `extension '${key}' (${field}[${i}]) not found in this project; upload it first with POST /extensions`,
          );
        if (!rows.some((r) => r.id === row.id)) rows.push(row);
      }
      if (opts.use) {
        for (const r of rows) await requireArchive(extensions, r);
        await extensions.touch(rows.map((r) => r.id));
      }
      return rows;
    },
    async unpackInto(rows, dir) {
      const dirs: string[] = [];
      for (const r of rows) {
        await requireArchive(extensions, r);
        const target = path.join(dir, 'stored', r.id);
        await fsp.rm(target, { recursive: true, force: true });
        dirs.push(await unpackExtension(extensions.zipPath(r.id), target, `extension '${r.name ?? r.id}'`));
      }
      return dirs;
    },
  };
}

/**
 * The zip must be on this node's disk. With several nodes it is missing when another node took
 * the upload and `<dataDir>/extensions` is not shared: a 503 saying so, not a broken launch.
 */
export async function requireArchive(extensions: Extensions, r: ExtensionRow): Promise<void> {
  const ok = await fsp.access(extensions.zipPath(r.id)).then(
    () => true,
    () => false,
  );
  if (!ok) {
    throw new DomainError(
      503,
      'extension_archive_unavailable',
      `the archive of extension '${r.name ?? r.id}' is not on this engine node; with several nodes, <dataDir>/extensions must be shared storage`,
    );
  }
}
