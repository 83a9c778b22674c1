/**
 * Where a session reports what went wrong beside its work (a failing or slow listener): the two
 * levels it uses, in the engine logger's (pino's) call shape. Its own type so runtime/ needs
 * nothing of Fastify's types (the engine's `ctx.log` satisfies it).
 */
export interface ProblemLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
