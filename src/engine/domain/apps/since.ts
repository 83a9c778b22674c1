/**
 * `?since=` of the deployment and invocation endpoints: an RFC 3339 timestamp or a Go-style
 * duration counted back from now (`5m`, `1h30m`, `90s`, `250ms`; grammar in
 * shared/instant-or-duration.ts). Anything else is a 400.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { parseInstantOrDuration } from '../../../shared/instant-or-duration.js';

/** The instant `since` names, or undefined when it is absent/empty. */
export function parseSince(since: string | undefined, now: Date, field = 'since'): Date | undefined {
  if (since === undefined || since.trim() === '') return undefined;
  const t = parseInstantOrDuration(since, now.getTime());
  if (t !== undefined) return new Date(t);
  throw DomainError.invalidField(field, 'must be an RFC 3339 timestamp (2025-01-02T15:04:05Z) or a duration like 5m, 1h30m, 90s');
}
