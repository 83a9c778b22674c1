/**
 * Page tokens and export cursors: an opaque base64url form of the last row's (timestamp, id),
 * newest first. Decoding is strict — the token must re-encode to exactly itself — so an edited
 * or truncated token is a 400, never a silently different page.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

export interface AuditPosition {
  timestamp: string;
  id: number;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function encodeCursor(p: AuditPosition): string {
  return Buffer.from(JSON.stringify([p.timestamp, p.id]), 'utf8').toString('base64url');
}

export function decodeCursor(token: string, field: string): AuditPosition {
  const bad = (): DomainError => DomainError.invalidField(field, 'is not a token this server issued');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw bad();
  const [timestamp, id] = parsed as [unknown, unknown];
  if (typeof timestamp !== 'string' || !ISO.test(timestamp) || Number.isNaN(Date.parse(timestamp))) throw bad();
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw bad();
  const position = { timestamp, id };
  if (encodeCursor(position) !== token) throw bad();
  return position;
}
