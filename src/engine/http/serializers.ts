/**
 * Response serializers (fast-json-stringify, what Fastify uses by default), built once per
 * process and keyed by the schema's JSON. Fastify builds one per route and status at every start,
 * about 0.4 CPU-s; an engine stopped and started again in the same process (the desktop app's
 * restart, every test file's engines) has the same route schemas, so the cache holds a fixed set.
 * The engine adds no shared schemas (`addSchema`), so a serializer depends on its schema alone.
 */
import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';

type Serializer = (data: unknown) => string;

const built = new Map<string, Serializer>();

/** The serializer for one response schema, built once per process. */
export function serializerFor(schema: object): Serializer {
  const key = JSON.stringify(schema);
  let fn = built.get(key);
  if (!fn) {
    fn = fastJsonStringify(schema) as Serializer;
    built.set(key, fn);
  }
  return fn;
}

export function installSerializers(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => serializerFor(schema as object));
}
