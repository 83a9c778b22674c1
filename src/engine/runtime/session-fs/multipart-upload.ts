/**
 * The two multipart uploads of `/fs`: `upload` (`files[i][dest_path]` + `files[i][file]` pairs,
 * in whatever order the client's form puts them) and `upload_zip` (`dest_path` + `zip_file`).
 * File parts are streamed to disk as they arrive: straight to their destination when its path
 * is already known, otherwise to a staging file in the session's temp dir that is moved once
 * the matching `dest_path` arrives. Nothing is ever held in memory whole.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { writeFileFromStream } from './session-files.js';
import { normalizeClientPath } from './client-path.js';
import { extractZip } from './zip-extract.js';

const FILES_FIELD = /^files\[(\d+)\]\[(dest_path|file)\]$/;

async function stage(tmpDir: string, stream: Readable): Promise<string> {
  await fsp.mkdir(tmpDir, { recursive: true, mode: 0o700 });
  const file = path.join(tmpDir, `upload-${randomUUID()}`);
  await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }));
  return file;
}

function partsOf(request: FastifyRequest): AsyncIterableIterator<Multipart> {
  if (!request.isMultipart()) throw new DomainError(415, 'unsupported_media_type', 'expected a multipart/form-data body');
  return request.parts();
}

async function moveStaged(root: string, staged: string, destPath: string): Promise<void> {
  // Copy through the sandboxed writer so the destination gets the same checks as write_file.
  await writeFileFromStream(root, destPath, fs.createReadStream(staged), 0o644, false);
}

export async function handleUpload(request: FastifyRequest, root: string, tmpDir: string): Promise<number> {
  const dests = new Map<string, string>();
  const staged = new Map<string, string>();
  let written = 0;
  try {
    for await (const part of partsOf(request)) {
      const m = FILES_FIELD.exec(part.fieldname);
      if (!m) {
        if (part.type === 'file') part.file.resume();
        throw DomainError.invalidField(part.fieldname, 'is not a known field (expected files[i][dest_path] and files[i][file])');
      }
      const [, index, kind] = m;
      if (kind === 'dest_path') {
        if (part.type !== 'field') throw DomainError.invalidField(part.fieldname, 'must be a text field');
        const dest = String(part.value);
        normalizeClientPath(dest, part.fieldname);
        dests.set(index, dest);
        const waiting = staged.get(index);
        if (waiting) {
          staged.delete(index);
          await moveStaged(root, waiting, dest);
          await fsp.rm(waiting, { force: true });
          written++;
        }
      } else {
        if (part.type !== 'file') throw DomainError.invalidField(part.fieldname, 'must be a file');
        const dest = dests.get(index);
        if (dest) {
          await writeFileFromStream(root, dest, part.file, 0o644, false);
          written++;
        } else {
          staged.set(index, await stage(tmpDir, part.file));
        }
      }
    }
    if (staged.size > 0) throw DomainError.invalidField(`files[${[...staged.keys()][0]}][dest_path]`, 'is required');
    if (written === 0) throw DomainError.invalidField('files', 'must contain at least one file');
    return written;
  } finally {
    for (const f of staged.values()) await fsp.rm(f, { force: true });
  }
}

export async function handleUploadZip(request: FastifyRequest, root: string, tmpDir: string): Promise<void> {
  let dest: string | undefined;
  let zipFile: string | undefined;
  try {
    for await (const part of partsOf(request)) {
      if (part.fieldname === 'dest_path' && part.type === 'field') {
        dest = String(part.value);
        normalizeClientPath(dest, 'dest_path');
      } else if (part.fieldname === 'zip_file' && part.type === 'file') {
        if (zipFile) throw DomainError.invalidField('zip_file', 'must be given once');
        zipFile = await stage(tmpDir, part.file); // yauzl needs random access: the central directory is at the end
      } else {
        if (part.type === 'file') part.file.resume();
        throw DomainError.invalidField(part.fieldname, 'is not a known field (expected dest_path and zip_file)');
      }
    }
    if (!dest) throw DomainError.invalidField('dest_path', 'is required');
    if (!zipFile) throw DomainError.invalidField('zip_file', 'is required');
    await extractZip(root, zipFile, dest);
  } finally {
    if (zipFile) await fsp.rm(zipFile, { force: true });
  }
}
