/**
 * Invocation-scoped API keys: the `KERNEL_API_KEY` an action runs with. Only the hash is
 * stored (on the invocation row). A key authenticates as `strategy: 'invocation_key'` in the
 * invocation's project, with `invocationId` set, and only while the invocation is queued or
 * running: live keys of this node are answered from memory, others from the database, so a
 * key stops working on every node once its invocation reaches a terminal state.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Authenticator, Credential } from '../org/auth-context.js';
import { generateKey, hashKey } from '../org/api-key-secret.js';

export const INVOCATION_KEY_PREFIX = 'bdi_';

export function newInvocationKey(): { key: string; hash: string } {
  const key = INVOCATION_KEY_PREFIX + generateKey().slice(4);
  return { key, hash: hashKey(key) };
}

export class InvocationKeys {
  private readonly live = new Map<string, Credential>();

  constructor(private readonly db: Kysely<Database>) {}

  /** Makes a key usable on this node right away (the row is written by the caller). */
  activate(hash: string, credential: Credential): void {
    this.live.set(hash, credential);
  }

  revoke(hash: string): void {
    this.live.delete(hash);
  }

  authenticator(): Authenticator {
    return async (_req, bearer) => {
      if (!bearer?.startsWith(INVOCATION_KEY_PREFIX)) return null;
      const hash = hashKey(bearer);
      const cached = this.live.get(hash);
      if (cached) return cached;
      const row = await this.db
        .selectFrom('invocations')
        .innerJoin('orgs', 'orgs.id', 'invocations.org_id')
        .select(['invocations.id', 'invocations.org_id', 'invocations.project_id', 'orgs.admin_email'])
        .where('invocations.key_hash', '=', hash)
        .where('invocations.status', 'in', ['queued', 'running'])
        .executeTakeFirst();
      if (!row) return null;
      return {
        orgId: row.org_id,
        strategy: 'invocation_key',
        userId: `invocation:${row.id}`,
        email: row.admin_email,
        projectId: row.project_id,
        invocationId: row.id,
      };
    };
  }
}
