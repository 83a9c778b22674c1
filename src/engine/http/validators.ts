/**
 * Two validators: query strings and path params are text on the wire, so their values are
 * coerced to the schema's types; JSON bodies are not coerced, so `{"name": 5}` is a 400 and
 * not a project called "5". Both report every invalid field (allErrors). A body property no
 * schema knows is dropped, not refused (unknown-fields.ts: newer Kernel clients send fields
 * this engine may not have yet).
 *
 * Compiled validators are kept for the life of the process, keyed by the schema's JSON: Fastify
 * compiles every route's schemas at each start, which is about 0.6 CPU-s, and an engine that is
 * stopped and started again in the same process (the desktop app's restart, every test file's
 * engines) gets the same schemas. The route schemas are the code's, so the cache holds a fixed set.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { ignoredFieldsOf, ignoringUnknownFields } from './unknown-fields.js';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

let compilers: { strict: Ajv; coercing: Ajv } | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The validator for one route part's schema, compiled once per process. */
export function validatorFor(schema: object, httpPart: string | undefined): ValidateFunction {
  const body = httpPart === 'body';
  const key = `${body ? 'body' : 'coerced'}\0${JSON.stringify(schema)}`;
  let fn = compiled.get(key);
  if (!fn) {
    compilers ??= { strict: makeAjv(false), coercing: makeAjv(true) };
    fn = body ? ignoringUnknownFields(compilers.strict.compile(schema)) : compilers.coercing.compile(schema);
    compiled.set(key, fn);
  }
  return fn;
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => validatorFor(schema as object, httpPart));
  // Only a debug log shows the dropped names: without one, no hook on every request.
  if (app.log.level !== 'debug' && app.log.level !== 'trace') return;
  app.addHook('preHandler', (req, _reply, done) => {
    const names = ignoredFieldsOf(req.body);
    if (names?.length) req.log.debug({ ignored_fields: names, route: req.routeOptions.url }, 'unknown body fields ignored');
    done();
  });
}
