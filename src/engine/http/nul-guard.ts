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

/**
 * `findNul` for a request part. Params and queries (and many bodies) are flat objects of
 * strings and numbers: those are checked in place, with no visited-set or entry arrays, since
 * this runs on every request. Anything nested takes the full walk.
 */
function firstNul(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') return findNul(value, '');
  if (Buffer.isBuffer(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return undefined;
  // for-in sees every key Object.entries would (and maybe inherited ones): finding nothing here
  // means findNul would find nothing either; any doubt goes to findNul for the exact answer.
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const v = obj[k];
    if (v !== null && typeof v === 'object') return findNul(value, '');
    if (k.includes('\u0000') || (typeof v === 'string' && v.includes('\u0000'))) return findNul(value, '');
  }
  return undefined;
}

export function installNulGuard(app: FastifyInstance): void {
  const refuse = (hit: string) => ApiError.invalidField(hit || 'request', 'must not contain NUL characters');
  // Callback-style: no promise per request. Params and query as soon as the route is known —
  // before auth and multi-node routing look an id up in the database; the body once parsed.
  app.addHook('onRequest', (request, _reply, done) => {
    const hit = firstNul(request.params) ?? firstNul(request.query);
    done(hit === undefined ? undefined : refuse(hit));
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const hit = firstNul(request.body);
    done(hit === undefined ? undefined : refuse(hit));
  });
}
