/**
 * What every multipart upload route does with its parts: a file part is streamed to disk
 * (never held whole) while its SHA-256 and size are taken, and the multipart plugin's own
 * failures a client can cause (file too large, malformed body) become 4xx Error objects.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../../../shared/errors/domain-error.js';

/** Streams a file part to `file` (mode 0600), hashing it on the way. */
export async function saveFilePart(stream: Readable, file: string): Promise<{ sha256: string; size: number }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(c: Buffer, _e, cb) {
      hash.update(c);
      size += c.length;
      cb(null, c);
    },
  });
  await pipeline(stream, tap, fs.createWriteStream(file, { mode: 0o600 }));
  return { sha256: hash.digest('hex'), size };
}

/** A multipart failure as the error to throw: `tooLarge` names the size limit that was hit. */
export function multipartError(err: unknown, tooLarge: string): unknown {
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return new DomainError(413, 'payload_too_large', tooLarge);
  if (!(err instanceof DomainError) && e.statusCode && e.statusCode < 500)
    return new DomainError(e.statusCode, 'invalid_request', e.message ?? 'invalid multipart body');
  return err;
}
