/**
 * A feature plugs routes, upgrade handlers and stop hooks into a running engine.
 * `src/engine/features.ts` lists them in the order they register; `compose.ts` builds the
 * services they use. A feature names those services in its type, `Feature<'sessions' | 'pools'>`,
 * and receives exactly them, typed, as `deps`.
 */
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EngineContext } from './context.js';
import type { EngineServices, ServiceName } from './services.js';

/**
 * The engine's Fastify app with the TypeBox type provider: a route's `req.body`, `req.params`,
 * `req.query` and `req.headers` are typed from its schema (shared/wire), so no handler casts them.
 */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** The services a feature uses, picked from the engine's. */
export type Deps<K extends ServiceName> = Pick<EngineServices, K>;

export interface Feature<K extends ServiceName = never> {
  name: string;
  register(app: App, ctx: EngineContext, deps: Deps<K>): Promise<void> | void;
  /** Runs after the server listens (e.g. recovering sessions that need the public URL). */
  started?(ctx: EngineContext, deps: Deps<K>): Promise<void> | void;
}

/** A feature of any service needs: what the engine's list holds. */
export type AnyFeature = Feature<ServiceName>;
