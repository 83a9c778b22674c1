/**
 * A feature plugs routes, services, upgrade handlers and stop hooks into a running engine.
 * `src/engine/features.ts` lists them in the order they register.
 */
import type { FastifyInstance } from 'fastify';
import type { EngineContext } from './context.js';

export interface Feature {
  name: string;
  register(app: FastifyInstance, ctx: EngineContext): Promise<void> | void;
  /** Runs after the server listens (e.g. recovering sessions that need the public URL). */
  started?(ctx: EngineContext): Promise<void> | void;
}
