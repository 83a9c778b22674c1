/**
 * Request body parsing. The official client sometimes sends `Content-Type: application/json`
 * with no body at all (an explicit `null` body), so an empty JSON body reads as "no body".
 * Raw uploads (`application/octet-stream`) are left as streams for the routes that want them.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

export function installBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json/, { parseAs: 'string', bodyLimit: 10 * 1024 * 1024 }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(ApiError.badRequest('request body is not valid JSON', [{ code: 'invalid_json', message: 'body could not be parsed as JSON' }]), undefined);
    }
  });
  // Streams are consumed by the handler itself (file writes, uploads) so large bodies never sit in memory.
  app.addContentTypeParser(['application/octet-stream', 'text/plain'], (_req, payload, done) => done(null, payload));
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  // A JSON route called with no body (or an empty one) sees `{}`: required fields then fail
  // validation by name, and all-optional bodies simply work.
  app.addHook('preValidation', (request, _reply, done) => {
    if ((request.body === undefined || request.body === null) && request.routeOptions.schema?.body) request.body = {};
    done();
  });
}
