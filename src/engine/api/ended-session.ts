/**
 * The routes that also answer for an ended session (its post-mortem: telemetry, logs, processes,
 * HAR) ask here first: the id of the ended session the caller reaches by the route's `:id`, or
 * undefined — then the route serves the running session as before (and a session out of reach
 * stays a 404 there).
 */
import type { AuthContext } from '../domain/org/auth-context.js';

export interface EndedSessions {
  endedId(auth: AuthContext, idOrName: string): Promise<string | undefined>;
}

export function endedSession(sessions: EndedSessions, req: { auth: AuthContext; params: { id: string } }): Promise<string | undefined> {
  return sessions.endedId(req.auth, req.params.id);
}
