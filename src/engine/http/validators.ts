/**
 * Two validators: query strings and path params are text on the wire, so their values are
 * coerced to the schema's types; JSON bodies are not coerced, so `{"name": 5}` is a 400 and
 * not a project called "5". Both report every invalid field (allErrors). A body property no
 * schema knows is dropped, not refused (unknown-fields.ts: newer Kernel clients send fields
 * this engine may not have yet).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ignoredFieldsOf, ignoringUnknownFields } from './unknown-fields.js';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return ignoringUnknownFields(strict.compile(schema as FastifySchema));
    return coercing.compile(schema as FastifySchema) as ValidateFunction;
  });
  // Only a debug log shows the dropped names: without one, no hook on every request.
  if (app.log.level !== 'debug' && app.log.level !== 'trace') return;
  app.addHook('preHandler', (req, _reply, done) => {
    const names = ignoredFieldsOf(req.body);
    if (names?.length) req.log.debug({ ignored_fields: names, route: req.routeOptions.url }, 'unknown body fields ignored');
    done();
  });
}
