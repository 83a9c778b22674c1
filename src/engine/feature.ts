/**
 * A feature plugs routes, services, upgrade handlers and stop hooks into a running engine.
 * `src/engine/features.ts` lists them in the order they register.
 */
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EngineContext } from './context.js';

/**
 * The engine's Fastify app with the TypeBox type provider: a route's `req.body`, `req.params`,
 * `req.query` and `req.headers` are typed from its schema (shared/wire), so no handler casts them.
 */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface Feature {
  name: string;
  register(app: App, ctx: EngineContext): Promise<void> | void;
  /** Runs after the server listens (e.g. recovering sessions that need the public URL). */
  started?(ctx: EngineContext): Promise<void> | void;
}
