/**
 * API keys: issued in plaintext once, stored as hashes, listed masked. Authentication looks a
 * key up by hash and keeps a short in-memory cache, so an authenticated request costs no
 * database round trip in the common case; deleting or rotating a key evicts it here at once
 * (other nodes see the change within the cache TTL).
 */
import type { Kysely } from 'kysely';
import type { Database, ApiKeyTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { Credential } from '../../http/auth.js';
import { newId } from '../ids.js';
import { generateKey, hashKey, maskKey, sameHash } from './api-key-secret.js';
import { nameKey } from './name-key.js';

export type ApiKeyRow = ApiKeyTable;

const CACHE_TTL_MS = 5_000;

interface CacheEntry {
  row: ApiKeyRow;
  email: string;
  at: number;
}

export class ApiKeyAuthority {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Creates a key row; returns it with the plaintext, which is never stored. */
  async issue(input: {
    orgId: string;
    name: string;
    projectId: string | null;
    createdById: string | null;
    /** Explicit expiry; ignored when `lifetimeDays` is given. */
    expiresAt?: string | null;
    /** Lifetime counted from the creation instant, remembered for rotation; null = never expires. */
    lifetimeDays?: number | null;
    plaintext?: string;
  }): Promise<{ row: ApiKeyRow; key: string }> {
    const key = input.plaintext ?? generateKey();
    const id = newId();
    const now = this.clock.now();
    const lifetimeDays = input.lifetimeDays ?? null;
    const expiresAt = lifetimeDays === null ? (input.expiresAt ?? null) : new Date(now.getTime() + lifetimeDays * 86_400_000).toISOString();
    const row: ApiKeyRow = {
      id,
      org_id: input.orgId,
      project_id: input.projectId,
      name: input.name,
      name_key: nameKey(input.name),
      key_hash: hashKey(key),
      masked_key: maskKey(key),
      created_by_id: input.createdById ?? id,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      lifetime_days: lifetimeDays,
      deleted_at: null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    return { row, key };
  }

  async authenticate(key: string): Promise<Credential | null> {
    const hash = hashKey(key);
    const nowMs = this.clock.now().getTime();
    let entry = this.cache.get(hash);
    if (!entry || Date.now() - entry.at > CACHE_TTL_MS) {
      const row = await this.db
        .selectFrom('api_keys')
        .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
        .selectAll('api_keys')
        .select('orgs.admin_email')
        .where('api_keys.key_hash', '=', hash)
        .executeTakeFirst();
      if (!row) {
        this.cache.delete(hash);
        return null;
      }
      const { admin_email, ...keyRow } = row;
      entry = { row: keyRow, email: admin_email, at: Date.now() };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, entry);
    }
    const r = entry.row;
    if (!sameHash(r.key_hash, hash)) return null;
    if (r.deleted_at) return null;
    if (r.expires_at && Date.parse(r.expires_at) <= nowMs) return null;
    return { orgId: r.org_id, strategy: 'api_key', userId: r.id, email: entry.email, projectId: r.project_id };
  }

  /** Drops cached lookups of a key so deletion and expiry changes apply immediately on this node. */
  evict(keyHash: string): void {
    this.cache.delete(keyHash);
  }
}
