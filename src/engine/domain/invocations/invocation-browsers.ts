/**
 * Browsers that belong to an invocation. `POST /browsers` with `invocation_id` is checked
 * here (a hook in front of the sessions feature's route): the invocation must exist in the
 * caller's project (404) and still run (409). A browser created with an invocation key and
 * no `invocation_id` belongs to that invocation (the session manager stamps it). When an
 * invocation ends its browsers are deleted (invocations.ts); a browser whose creation raced
 * with that end is deleted as soon as it starts.
 */
import type { FastifyInstance } from 'fastify';
import { stringField } from '../../../shared/string-field.js';
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionDto } from '../sessions/session-record.js';
import { isTerminalInvocation } from './invocation-record.js';
import { projectAuth } from './invocations.js';

/** The part of the session manager this feature uses. */
export interface InvocationSessionManager {
  listByInvocation(auth: AuthContext, invocationId: string): Promise<SessionDto[]>;
  deleteByInvocation(auth: AuthContext, invocationId: string): Promise<number>;
  onSessionStart(fn: (h: { id: string }) => void): () => void;
  delete(auth: AuthContext, idOrName: string): Promise<void>;
}

export function sessionsOf(ctx: EngineContext): InvocationSessionManager | undefined {
  return ctx.services.sessions as InvocationSessionManager | undefined;
}

async function assertJoinable(ctx: EngineContext, auth: AuthContext, invocationId: string): Promise<void> {
  const row = await ctx.db
    .selectFrom('invocations')
    .select(['status'])
    .where('id', '=', invocationId)
    .where('org_id', '=', auth.orgId)
    .where('project_id', '=', auth.projectId)
    .executeTakeFirst();
  if (!row) throw new DomainError(404, 'invocation_not_found', `invocation '${invocationId}' not found in this project`);
  if (isTerminalInvocation(row.status))
    throw DomainError.conflict(`invocation '${invocationId}' already ${row.status}; browsers can only join a running invocation`, 'invocation_finished');
}

export function installInvocationBrowserChecks(app: FastifyInstance, ctx: EngineContext): void {
  // Runs for every request of the engine: callback style, so only POST /browsers with an invocation pays for a promise.
  app.addHook('preHandler', (req, _reply, done) => {
    const invocationId = req.method === 'POST' && req.routeOptions.url === '/browsers' ? stringField(req.body, 'invocation_id') : undefined;
    if (typeof invocationId !== 'string' || invocationId === '') return done();
    assertJoinable(ctx, req.auth, invocationId).then(() => done(), done);
  });
  const sessions = sessionsOf(ctx);
  if (!sessions) return;
  const unsubscribe = sessions.onSessionStart((h) => {
    void (async () => {
      const row = await ctx.db
        .selectFrom('browser_sessions')
        .innerJoin('invocations', 'invocations.id', 'browser_sessions.invocation_id')
        .select(['invocations.status', 'browser_sessions.org_id', 'browser_sessions.project_id'])
        .where('browser_sessions.id', '=', h.id)
        .executeTakeFirst();
      if (row && isTerminalInvocation(row.status)) await sessions.delete(projectAuth(row), h.id);
    })().catch((err) => ctx.log.error({ err }, 'ending a browser of a finished invocation failed'));
  });
  ctx.onStop(unsubscribe);
}
