/**
 * API keys: issued in plaintext once, stored as hashes, listed masked. Authentication looks a
 * key up by hash and keeps a short in-memory cache, so an authenticated request costs no
 * database round trip in the common case; deleting or rotating a key evicts it here at once
 * (other nodes see the change within the cache TTL). A key that matched a row also has its
 * hash remembered, so repeat requests skip SHA-256; comparison stays constant-time on hashes.
 */
import type { Kysely } from 'kysely';
import type { Database, ApiKeyTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { Credential } from './auth-context.js';
import { newId } from '../ids.js';
import { generateKey, hashKey, maskKey, sameHashBytes } from './api-key-secret.js';
import { nameKey } from '../../../shared/name-key.js';

export type ApiKeyRow = ApiKeyTable;

const CACHE_TTL_MS = 5_000;

/** Bound on both caches; beyond it they are emptied rather than tracked for recency. */
const MAX_CACHED = 10_000;

interface CacheEntry {
  row: ApiKeyRow;
  email: string;
  at: number;
  /** The stored hash as bytes, for the constant-time comparison. */
  hashBytes: Buffer;
  expiresMs: number | null;
}

/** A presented plaintext key's SHA-256, kept so a repeat caller is not hashed again. */
interface PresentedKey {
  hex: string;
  bytes: Buffer;
}

export class ApiKeyAuthority {
  /** By key hash: what the database said about a key, for CACHE_TTL_MS. */
  private readonly cache = new Map<string, CacheEntry>();
  /** By plaintext key (of keys that matched a row): its hash. */
  private readonly presented = new Map<string, PresentedKey>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Creates a key row (in `db`'s transaction when given one); returns it with the plaintext, which is never stored. */
  async issue(
    input: {
      orgId: string;
      name: string;
      projectId: string | null;
      createdById: string | null;
      /** Explicit expiry; ignored when `lifetimeDays` is given. */
      expiresAt?: string | null;
      /** Lifetime counted from the creation instant, remembered for rotation; null = never expires. */
      lifetimeDays?: number | null;
      plaintext?: string;
    },
    db: Kysely<Database> = this.db,
  ): Promise<{ row: ApiKeyRow; key: string }> {
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
    await db.insertInto('api_keys').values(row).execute();
    return { row, key };
  }

  /**
   * Resolves a presented key. Synchronous (no promise, no hash) when the key was seen recently:
   * this runs on every authenticated request, so the hot path avoids SHA-256 and microtasks.
   */
  authenticate(key: string): Credential | null | Promise<Credential | null> {
    const presented = this.presented.get(key);
    if (presented) {
      const entry = this.cache.get(presented.hex);
      if (entry && Date.now() - entry.at <= CACHE_TTL_MS) return this.check(entry, presented.bytes);
    }
    return this.lookup(key, presented);
  }

  private async lookup(key: string, presented: PresentedKey | undefined): Promise<Credential | null> {
    const hex = presented?.hex ?? hashKey(key);
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
      .selectAll('api_keys')
      .select('orgs.admin_email')
      .where('api_keys.key_hash', '=', hex)
      .executeTakeFirst();
    if (!row) {
      this.cache.delete(hex);
      this.presented.delete(key);
      return null;
    }
    const { admin_email, ...keyRow } = row;
    const entry: CacheEntry = {
      row: keyRow,
      email: admin_email,
      at: Date.now(),
      hashBytes: Buffer.from(keyRow.key_hash, 'hex'),
      expiresMs: keyRow.expires_at ? Date.parse(keyRow.expires_at) : null,
    };
    if (this.cache.size > MAX_CACHED) this.cache.clear();
    this.cache.set(hex, entry);
    // Only keys that matched a row are remembered, so random guesses cannot fill this map.
    const bytes = presented?.bytes ?? Buffer.from(hex, 'hex');
    if (!presented) {
      if (this.presented.size > MAX_CACHED) this.presented.clear();
      this.presented.set(key, { hex, bytes });
    }
    return this.check(entry, bytes);
  }

  private check(entry: CacheEntry, presentedHash: Buffer): Credential | null {
    const r = entry.row;
    if (!sameHashBytes(entry.hashBytes, presentedHash)) return null;
    if (r.deleted_at) return null;
    if (entry.expiresMs !== null && entry.expiresMs <= this.clock.now().getTime()) return null;
    return { orgId: r.org_id, strategy: 'api_key', userId: r.id, email: entry.email, projectId: r.project_id };
  }

  /** Drops cached lookups of a key so deletion and expiry changes apply immediately on this node. */
  evict(keyHash: string): void {
    this.cache.delete(keyHash);
  }
}
