/**
 * Refuses NUL characters in path params, query values and JSON body strings with a 400.
 * PostgreSQL text cannot hold U+0000, so without this a `%00` in an id or a `"\u0000"` in a
 * tag reaches a query and fails as a 500 there; no API field has a use for it.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

/** The first path (e.g. `tags.a`) whose string contains NUL, or undefined. */
function findNul(value: unknown, at: string, seen = new WeakSet<object>(), depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  // Multipart parts point back at their siblings (`fields`): visit every object once.
  if (seen.has(value)) return undefined;
  seen.add(value);
  // Raw bodies (octet-stream uploads) arrive as streams or buffers: bytes, not text fields.
  if (Buffer.isBuffer(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return at ? `${at}.${k.split('\u0000').join('\\0')}` : k.split('\u0000').join('\\0');
    const hit = findNul(v, at ? `${at}.${k}` : k, seen, depth + 1);
    if (hit) return hit;
  }
  return undefined;
}

export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const hit = findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
    if (hit !== undefined) throw ApiError.invalidField(hit || 'request', 'must not contain NUL characters');
  });
}
