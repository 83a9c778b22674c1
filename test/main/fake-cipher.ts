/**
 * A real (AES-256-GCM) cipher standing in for Electron's safeStorage, with a switchable
 * backend name and availability, so the vault is tested on actual ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Cipher } from '../../src/main/credential-vault.js';

export function fakeCipher(opts: { backend?: string; available?: boolean } = {}): Cipher & { key: Buffer } {
  const key = randomBytes(32);
  return {
    key,
    isAvailable: async () => opts.available ?? true,
    backend: () => opts.backend ?? 'gnome_libsecret',
    async encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    async decrypt(data) {
      const d = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
      d.setAuthTag(data.subarray(12, 28));
      return Buffer.concat([d.update(data.subarray(28)), d.final()]).toString('utf8');
    },
  };
}
