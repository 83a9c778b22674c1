/**
 * Shared pieces of the audit tests: a hand-set clock (so every recorded request gets a known
 * timestamp), flushing the engine's batching writer, reading the raw audit table, a second
 * organization with its own key, and waiting for rows written when a connection closes.
 */
import type { TestEngine } from '../../helpers/engine.js';
import type { AuditWriter } from '../../../src/engine/domain/audit/audit-writer.js';
import type { Clock } from '../../../src/shared/clock.js';
import { newId } from '../../../src/engine/domain/ids.js';

export interface ManualClock extends Clock {
  set(iso: string | Date): void;
}

export function manualClock(start: string | Date): ManualClock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    set: (iso) => {
      t = new Date(iso).getTime();
    },
  };
}

export async function flushAudit(t: TestEngine): Promise<void> {
  await (t.engine.services.auditWriter as AuditWriter).flush();
}

export async function auditTable(t: TestEngine) {
  await flushAudit(t);
  return t.engine.context.db.selectFrom('audit_logs').selectAll().orderBy('id').execute();
}

/** The key id the admin key is recorded under (its `user_id`) and its email. */
export async function identityOf(t: TestEngine, key: string): Promise<{ userId: string; email: string }> {
  const c = await t.engine.context.apiKeys.authenticate(key);
  if (!c) throw new Error('key does not authenticate');
  return { userId: c.userId, email: c.email };
}

/** A second organization (the API has no endpoint creating orgs) with a project and a key. */
export async function secondOrg(t: TestEngine): Promise<{ orgId: string; key: string; keyId: string }> {
  const ctx = t.engine.context;
  const orgId = newId();
  await ctx.db
    .insertInto('orgs')
    .values({
      id: orgId,
      name: 'other org',
      admin_email: 'other@example.test',
      default_project_max_concurrent_sessions: null,
      created_at: ctx.clock.now().toISOString(),
    })
    .execute();
  await ctx.projects.create(orgId, 'other-default');
  const { row, key } = await ctx.apiKeys.issue({ orgId, name: 'other admin', projectId: null, createdById: null, expiresAt: null });
  return { orgId, key, keyId: row.id };
}

/** Re-runs `check` (flushing the writer first) until it stops throwing or ~10 s have passed. */
export async function eventually<T>(t: TestEngine, check: () => Promise<T>): Promise<T> {
  let last: unknown;
  for (let i = 0; i < 100; i++) {
    await flushAudit(t);
    try {
      return await check();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw last;
}

export const sec = (base: string, s: number): string => new Date(new Date(base).getTime() + s * 1000).toISOString();
export const days = (base: string, d: number): string => new Date(new Date(base).getTime() + d * 86_400_000).toISOString();
