/**
 * How the console words an ended session's `ended_reason` (engine field, issue 28): a short label
 * for the list's badge and the pane banner, and who ended it when the engine knows.
 */
import type { Session } from '../../../shared/wire/sessions';

const LABELS: Record<string, string> = {
  deleted: 'deleted',
  timeout: 'inactivity timeout',
  browser_crashed: 'browser crashed',
  engine_stopped: 'engine stopped',
  engine_restarted: 'engine restarted',
  invocation_ended: 'invocation ended',
  node_lost: 'node lost',
  launch_failed: 'launch failed',
  create_aborted: 'create aborted',
  released: 'released to its pool',
  released_for_reuse: 'released to its pool',
  pool_flushed: 'pool flushed',
  pool_deleted: 'pool deleted',
  pool_profile_updated: 'pool profile updated',
};

/** `inactivity timeout`, `deleted by api_key:…`; `ended` when the engine did not say why. */
export function endedLabel(s: Pick<Session, 'ended_reason' | 'ended_by'>, withBy = false): string {
  const reason = s.ended_reason ? (LABELS[s.ended_reason] ?? s.ended_reason.replace(/_/g, ' ')) : 'ended';
  return withBy && s.ended_by ? `${reason} by ${s.ended_by}` : reason;
}
