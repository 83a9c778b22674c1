/**
 * `region` (Kernel 0.89) and `memory` (0.91) of a session. A region is the name the operator
 * gives an engine node (`--region`, default `us-east`): a session or pool runs on a node of the
 * region it asks for, fixed for its life. On a cluster a create for another node's region is
 * forwarded there before it reaches this check (http/node-forwarding.ts); one that gets here
 * with a region this node does not serve is 422 `region_unavailable`.
 *
 * `memory` is what a headful session asks for (`8GiB` default, `16GiB`) and is reported on
 * every session (headless: `1GiB`). It limits the session's jails where the engine can make
 * memory cgroups (runtime/sandbox/memory-group.ts; docs/use/kernel-compatibility.md).
 */
import { sql, type RawBuilder } from 'kysely';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { DialectName } from '../../store/database.js';

export const DEFAULT_REGION = 'us-east';
export type Memory = '1GiB' | '2GiB' | '6GiB' | '8GiB' | '16GiB';
export const HEADFUL_MEMORY: Memory = '8GiB';
export const HEADLESS_MEMORY: Memory = '1GiB';

/** The region a create asked for, when this node serves it. */
export function checkRegion(asked: string | undefined, nodeRegion: string, what = 'browser session'): string {
  if (asked === undefined || asked === nodeRegion) return nodeRegion;
  throw DomainError.unprocessable(`no engine node serves region '${asked}' for this ${what} (this node's region is '${nodeRegion}')`, 'region_unavailable');
}

/** `memory` is for headful, non-GPU sessions (Kernel); the default follows the kind of session. */
export function checkMemory(asked: '8GiB' | '16GiB' | undefined, headless: boolean, gpu: boolean): Memory {
  if (asked === undefined) return headless ? HEADLESS_MEMORY : HEADFUL_MEMORY;
  if (headless) throw DomainError.invalidField('memory', 'can only be chosen for headful sessions (headless: false)');
  if (gpu) throw DomainError.invalidField('memory', 'cannot be chosen for GPU sessions');
  return asked;
}

/** SQL: the region kept in a row's JSON column (a session's `options`, a pool's `config`) is `region`; rows from before regions count as the default. */
export function regionIs(dialect: DialectName, column: 'options' | 'config', region: string): RawBuilder<boolean> {
  return dialect === 'postgres'
    ? sql<boolean>`coalesce(${sql.ref(column)}::jsonb ->> 'region', ${DEFAULT_REGION}) = ${region}`
    : sql<boolean>`coalesce(json_extract(${sql.ref(column)}, '$.region'), ${DEFAULT_REGION}) = ${region}`;
}
