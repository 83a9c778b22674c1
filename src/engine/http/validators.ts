/**
 * Two validators: query strings and path params are text on the wire, so their values are
 * coerced to the schema's types; JSON bodies are not coerced, so `{"name": 5}` is a 400 and
 * not a project called "5". Both report every invalid field (allErrors).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as FastifySchema) as ValidateFunction;
  });
}
