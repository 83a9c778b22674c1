/**
 * Why a session ended and who or what ended it (issue 28): the row keeps the engine's reason
 * (`ended_reason`, sometimes with detail after a colon, e.g. `browser_crashed: gave up after 3
 * restarts`) and `ended_by` (`api_key:<key id>`, `session_jwt:<session id>`,
 * `invocation_key:<invocation id>`, `invocation:<id>`, `node:<id>`). The Session object shows the
 * reason without its detail — one of `ENDED_REASONS` for what this engine writes today — and
 * `ended_by` as stored.
 */
import type { AuthContext } from '../org/auth-context.js';

/**
 * `deleted`: a caller's DELETE; `timeout`: no activity for `timeout_seconds`; `browser_crashed`:
 * the browser died and its restarts gave up; `engine_stopped` / `engine_restarted`: the engine's
 * stop, or a start that found it left over; `invocation_ended`: its invocation finished;
 * `node_lost`: the node running it stopped heartbeating; `launch_failed` / `create_aborted`: its
 * create failed or its client went away; `released`, `released_for_reuse`, `pool_flushed`,
 * `pool_deleted`, `pool_profile_updated`: its pool let it go.
 */
export const ENDED_REASONS = [
  'deleted',
  'timeout',
  'browser_crashed',
  'engine_stopped',
  'engine_restarted',
  'invocation_ended',
  'node_lost',
  'launch_failed',
  'create_aborted',
  'released',
  'released_for_reuse',
  'pool_flushed',
  'pool_deleted',
  'pool_profile_updated',
] as const;

export interface EndCause {
  reason: string;
  by?: string;
}

/** Who a DELETE came from: the acting key, session or invocation (never a secret: ids only). */
export function endedByCaller(auth: Pick<AuthContext, 'strategy' | 'userId'>): string {
  return `${auth.strategy}:${auth.userId}`;
}

/** The reason as the API shows it: the stored one without its detail. */
export function endedReasonOf(stored: string | null): string | undefined {
  if (!stored) return undefined;
  return stored.split(':', 1)[0].trim() || undefined;
}
