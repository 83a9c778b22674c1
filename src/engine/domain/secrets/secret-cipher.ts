/**
 * AES-256-GCM encryption of small secrets (credential values, TOTP secrets, proxy passwords).
 * Each ciphertext is bound to what it belongs to through associated data (e.g.
 * `credential:<id>:values`), so a value copied into another row does not decrypt there.
 * Format: `v1.<key-id>.<base64 iv|tag|ciphertext>`; the key id (a hash prefix of the key) makes
 * a wrong or rotated key fail with a clear message instead of a bare authentication error.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretKeyProvider } from './secret-key-provider.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretCipher {
  private key?: Buffer;
  private keyId?: string;

  constructor(private readonly provider: SecretKeyProvider) {}

  /** Loads the key once (at feature start, so a bad key fails the engine start, not a request). */
  async ready(): Promise<void> {
    if (this.key) return;
    const key = await this.provider.getKey();
    this.key = key;
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  private loaded(): { key: Buffer; keyId: string } {
    if (!this.key || !this.keyId) throw new Error('secret key not loaded (call ready() first)');
    return { key: this.key, keyId: this.keyId };
  }

  encrypt(plaintext: string, aad: string): string {
    const { key, keyId } = this.loaded();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${keyId}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  decrypt(sealed: string, aad: string): string {
    const { key, keyId } = this.loaded();
    const [version, id, data] = sealed.split('.');
    if (version !== 'v1' || !data) throw new Error('unrecognized secret format');
    if (id !== keyId) throw new Error(`secret was encrypted with another key (key id ${id}, current ${keyId} from ${this.provider.description})`);
    const raw = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  encryptJson(value: unknown, aad: string): string {
    return this.encrypt(JSON.stringify(value), aad);
  }

  decryptJson<T>(sealed: string, aad: string): T {
    return JSON.parse(this.decrypt(sealed, aad)) as T;
  }
}
