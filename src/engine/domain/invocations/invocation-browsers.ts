/**
 * Browsers that belong to an invocation. `POST /browsers` with `invocation_id` is checked
 * here (api/browsers.ts runs `assertJoinable` before its handler): the invocation must exist in
 * the caller's project (404) and still run (409). A browser created with an invocation key and
 * no `invocation_id` belongs to that invocation (the session manager stamps it). When an
 * invocation ends its browsers are deleted (invocations.ts); a browser whose creation raced
 * with that end is deleted as soon as it starts (`endIfInvocationFinished`, also installed by
 * api/browsers.ts).
 */
import type { Kysely } from 'kysely';
import type { EngineContext } from '../../context.js';
import type { Database } from '../../store/schema.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionDto } from '../sessions/session-record.js';
import { isTerminalInvocation } from './invocation-record.js';
import { projectAuth } from './invocations.js';
import type { EndCause } from '../sessions/session-end-cause.js';

/** The part of the session manager this feature uses. */
export interface InvocationSessionManager {
  listByInvocation(auth: AuthContext, invocationId: string): Promise<SessionDto[]>;
  deleteByInvocation(auth: AuthContext, invocationId: string, cause?: EndCause): Promise<number>;
  browserIdsOfInvocation(orgId: string, projectId: string, invocationId: string): Promise<string[]>;
  onSessionStart(fn: (h: { id: string }) => void): () => void;
  delete(auth: AuthContext, idOrName: string, cause?: EndCause): Promise<void>;
}

/** What ends the browsers of an invocation that finished. */
export function invocationEnded(invocationId: string): EndCause {
  return { reason: 'invocation_ended', by: `invocation:${invocationId}` };
}

/** A browser may join `invocationId` only while it runs in the caller's project. */
export async function assertJoinable(db: Kysely<Database>, auth: AuthContext, invocationId: string): Promise<void> {
  const row = await db
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

/** A session-start listener: a browser whose invocation ended while it launched is deleted. */
export function endIfInvocationFinished(db: Kysely<Database>, sessions: InvocationSessionManager, log: EngineContext['log']): (h: { id: string }) => void {
  return (h) => {
    void (async () => {
      const row = await db
        .selectFrom('browser_sessions')
        .innerJoin('invocations', 'invocations.id', 'browser_sessions.invocation_id')
        .select(['invocations.id', 'invocations.status', 'browser_sessions.org_id', 'browser_sessions.project_id'])
        .where('browser_sessions.id', '=', h.id)
        .executeTakeFirst();
      if (row && isTerminalInvocation(row.status)) await sessions.delete(projectAuth(row), h.id, invocationEnded(row.id));
    })().catch((err) => log.error({ err }, 'ending a browser of a finished invocation failed'));
  };
}
