/**
 * Request body parsing. The official client sometimes sends `Content-Type: application/json`
 * with no body at all (an explicit `null` body), so an empty JSON body reads as "no body".
 * Raw uploads (`application/octet-stream`) are left as streams for the routes that want them.
 */
import { Readable } from 'node:stream';
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
  // A JSON route sent another media type (text/plain, octet-stream…) gets the raw stream as its
  // body; validation would strip the stream's fields (unknown-fields.ts) down to `{}` and run the
  // route as if called without a body — a profile save or a browser launch from a garbled upload.
  app.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema?.body as { type?: unknown } | undefined;
    if ((request.body === undefined || request.body === null) && schema) request.body = {};
    else if (schema?.type === 'object' && (request.body instanceof Readable || Buffer.isBuffer(request.body)))
      return done(
        new ApiError(
          415,
          'unsupported_media_type',
          `this route takes a JSON body (Content-Type: application/json), not ${request.headers['content-type'] ?? 'none'}`,
        ),
      );
    done();
  });
}
