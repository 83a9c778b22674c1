/**
 * The two multipart forms that carry extension zips: `POST /extensions` (`file` + `name?`) and
 * `POST /browsers/{id}/extensions` (`extensions[i][name]` + `extensions[i][zip_file]` pairs, in
 * whatever order the form puts them). Zip parts are streamed to staging files (yauzl needs
 * random access; nothing is held in memory whole) — the first form hashing as it goes for the
 * `checksum`. Multipart errors a client can cause become 4xx Error objects.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { multipartError, saveFilePart } from '../../runtime/uploads/multipart-files.js';
import { newId } from '../ids.js';
import { validateExtensionName, validateStoredExtensionName, type StagedZip } from './extensions.js';
import { MAX_EXTENSIONS_PER_SESSION } from './extension-service.js';

/** Largest accepted extension zip. */
export const MAX_EXTENSION_ZIP_BYTES = 256 * 1024 * 1024;

/**
 * A multipart body as these readers use it: Fastify's request (with the multipart plugin) fits
 * it, and domain/ stays free of the HTTP server's types.
 */
export interface MultipartForm {
  isMultipart(): boolean;
  parts(): AsyncIterable<FormPart>;
}

/** One part of the form: a streamed file or a text field. */
export type FormPart = { type: 'file'; fieldname: string; file: Readable } | { type: 'field'; fieldname: string; value: unknown };

const tooLarge = `an extension zip is larger than ${MAX_EXTENSION_ZIP_BYTES} bytes`;

function requireMultipart(req: MultipartForm, what: string): void {
  if (!req.isMultipart()) throw new DomainError(415, 'unsupported_media_type', `expected a multipart/form-data body with ${what}`);
}

/** Reads `POST /extensions`: the zip goes to `stagingFile` (the caller removes it if still there). */
export async function readExtensionUpload(req: MultipartForm, stagingFile: string): Promise<{ zip: StagedZip; name?: string }> {
  requireMultipart(req, 'the extension zip in `file`');
  let zip: StagedZip | undefined;
  let name: string | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw DomainError.invalidField(part.fieldname, 'is not a known file field (expected file)');
        }
        if (zip) throw DomainError.invalidField('file', 'must be given once');
        const saved = await saveFilePart(part.file, stagingFile);
        zip = { file: stagingFile, checksum: saved.sha256, size: saved.size };
      } else if (part.fieldname === 'name') {
        name = validateStoredExtensionName(String(part.value));
      } else throw DomainError.invalidField(part.fieldname, 'is not a known field (expected file and name)');
    }
  } catch (err) {
    throw multipartError(err, tooLarge);
  }
  if (!zip) throw DomainError.invalidField('file', 'is required (a zip of the unpacked extension, with manifest.json)');
  if (zip.size === 0) throw new DomainError(400, 'invalid_zip', 'file is empty, not a zip archive');
  return { zip, name };
}

const PAIR = /^extensions\[(\d{1,3})\]\[(name|zip_file)\]$/;

/** Reads `POST /browsers/{id}/extensions`: name → staged zip, in index order. Staged files live in `stagingDir`. */
export async function readSessionExtensionUploads(req: MultipartForm, stagingDir: string): Promise<Array<{ name: string; zipFile: string }>> {
  requireMultipart(req, 'extensions[i][name] and extensions[i][zip_file] pairs');
  const names = new Map<number, string>();
  const zips = new Map<number, string>();
  try {
    for await (const part of req.parts()) {
      const m = PAIR.exec(part.fieldname);
      if (!m) {
        if (part.type === 'file') part.file.resume();
        throw DomainError.invalidField(part.fieldname, 'is not a known field (expected extensions[i][name] and extensions[i][zip_file])');
      }
      const index = Number(m[1]);
      if (index >= MAX_EXTENSIONS_PER_SESSION) {
        if (part.type === 'file') part.file.resume();
        throw DomainError.invalidField('extensions', `at most ${MAX_EXTENSIONS_PER_SESSION} extensions per call`);
      }
      if (m[2] === 'name') {
        if (part.type !== 'field') throw DomainError.invalidField(part.fieldname, 'must be a text field');
        names.set(index, validateExtensionName(String(part.value), part.fieldname));
      } else {
        if (part.type !== 'file') throw DomainError.invalidField(part.fieldname, 'must be a file');
        if (zips.has(index)) {
          part.file.resume();
          throw DomainError.invalidField(part.fieldname, 'must be given once');
        }
        await fsp.mkdir(stagingDir, { recursive: true, mode: 0o700 });
        const file = path.join(stagingDir, `${newId()}.zip`);
        zips.set(index, file);
        await saveFilePart(part.file, file);
      }
    }
  } catch (err) {
    throw multipartError(err, tooLarge);
  }
  const indexes = [...new Set([...names.keys(), ...zips.keys()])].sort((a, b) => a - b);
  if (indexes.length === 0) throw DomainError.invalidField('extensions', 'must contain at least one extension');
  const out: Array<{ name: string; zipFile: string }> = [];
  for (const i of indexes) {
    const name = names.get(i);
    const zipFile = zips.get(i);
    if (!name) throw DomainError.invalidField(`extensions[${i}][name]`, 'is required');
    if (!zipFile) throw DomainError.invalidField(`extensions[${i}][zip_file]`, 'is required');
    if (out.some((o) => o.name === name)) throw DomainError.invalidField(`extensions[${i}][name]`, `'${name}' is given twice`);
    out.push({ name, zipFile });
  }
  return out;
}
