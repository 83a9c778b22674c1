/**
 * HOTP (RFC 4226) and TOTP (RFC 6238) with node:crypto, plus the base32 decoding of secrets.
 * Codes are 6 digits over 30-second steps with HMAC-SHA1, which is what authenticator apps and
 * websites use; the algorithm and digits are parameters so the RFC test vectors can be checked.
 */
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_STEP_SECONDS = 30;

/** Normalizes a user-typed base32 secret: spaces, dashes and padding removed, upper-cased. */
export function normalizeBase32(secret: string): string {
  return secret.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
}

/** Decodes RFC 4648 base32; throws on characters outside the alphabet. */
export function decodeBase32(secret: string): Buffer {
  const s = normalizeBase32(secret);
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of s) {
    const idx = BASE32.indexOf(ch);
    if (idx < 0) throw new Error(`invalid base32 character '${ch}'`);
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function encodeBase32(data: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of data) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function hotp(key: Buffer, counter: number, digits = 6, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const bin = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, '0');
}

export interface TotpCode {
  code: string;
  /** When this code stops being current (end of its 30-second step). */
  expiresAt: Date;
}

export function totp(key: Buffer, at: Date, opts: { digits?: number; algorithm?: 'sha1' | 'sha256' | 'sha512'; step?: number } = {}): TotpCode {
  const step = opts.step ?? TOTP_STEP_SECONDS;
  const counter = Math.floor(at.getTime() / 1000 / step);
  return { code: hotp(key, counter, opts.digits ?? 6, opts.algorithm ?? 'sha1'), expiresAt: new Date((counter + 1) * step * 1000) };
}

/** The current code of a base32 secret. */
export function totpFromSecret(base32Secret: string, at: Date): TotpCode {
  return totp(decodeBase32(base32Secret), at);
}
