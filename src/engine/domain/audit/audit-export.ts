/**
 * One export chunk: JSON Lines of audit entries, gzip-compressed by default. Each gzip chunk is
 * a complete gzip member, so the chunks the client appends one after another form a valid
 * multi-member .jsonl.gz file. The SHA-256 is over the bytes exactly as sent.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { entryOf, type AuditRow } from './audit-query.js';

const gzipAsync = promisify(gzip);

export type ExportFormat = 'jsonl' | 'jsonl.gz';

export interface ExportChunk {
  body: Buffer;
  sha256: string;
}

export async function buildExportChunk(rows: AuditRow[], format: ExportFormat): Promise<ExportChunk> {
  let text = '';
  for (const r of rows) text += JSON.stringify(entryOf(r)) + '\n';
  const raw = Buffer.from(text, 'utf8');
  const body = format === 'jsonl.gz' ? await gzipAsync(raw) : raw;
  return { body, sha256: createHash('sha256').update(body).digest('hex') };
}
