/**
 * API key material: generation, hashing and masking. Keys are stored only as SHA-256 hashes
 * (they are 256-bit random, so a slow hash adds nothing) and compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'bdk_';

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function maskKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 2)}…${key.slice(-4)}`;
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `sameHash` on hashes already decoded to bytes (the per-request path keeps them decoded). */
export function sameHashBytes(x: Buffer, y: Buffer): boolean {
  return x.length === y.length && timingSafeEqual(x, y);
}
