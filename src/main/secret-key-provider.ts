/**
 * The desktop app's engine secret key (it encrypts credential values, TOTP secrets and proxy
 * passwords) kept behind the OS keychain: 32 random bytes generated on first start, stored in
 * the app's userData only as `safeStorage` ciphertext (through the vault's `Cipher`), and
 * decrypted at each start to hand to the embedded engine as its `SecretKeyProvider`. A copy of
 * the data directory alone therefore decrypts nothing. On Linux without a keyring safeStorage
 * falls back to `basic_text` (obfuscation only): the key is still stored, but reported as weak
 * (the same warning the credential vault raises) rather than refused, so the app stays usable.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SECRET_KEY_BYTES, type SecretKeyProvider } from '../engine/domain/secrets/secret-key-provider.js';
import type { Cipher } from './credential-vault.js';

interface KeyFile {
  version: 1;
  /** safeStorage backend that encrypted the key (diagnostics: a different backend cannot decrypt it). */
  backend: string;
  /** base64 of safeStorage.encryptString(base64 key). */
  encrypted_key: string;
}

export interface KeychainKeyOptions {
  cipher: Cipher;
  /** e.g. `<userData>/engine-secret-key.json`. */
  file: string;
  /** Called once when the backend only obfuscates (Linux `basic_text`). */
  warn?: (message: string) => void;
}

export interface KeychainSecretKeyProvider extends SecretKeyProvider {
  /** Whether the key is protected by obfuscation only (known after the first getKey()). */
  readonly weak: boolean;
}

export const WEAK_KEY_WARNING =
  'No system keyring is available (safeStorage backend basic_text): the engine secret key, and so stored credentials, are only obfuscated on disk.';

export function keychainSecretKeyProvider(o: KeychainKeyOptions): KeychainSecretKeyProvider {
  let cached: Promise<Buffer> | undefined;
  let weak = false;

  const decode = async (raw: string): Promise<Buffer> => {
    let parsed: KeyFile;
    try {
      parsed = JSON.parse(raw) as KeyFile;
    } catch {
      throw new Error(
        `the desktop secret key file ${o.file} is not valid JSON; restore it from a backup (credentials stored with it cannot be read without it)`,
      );
    }
    if (parsed?.version !== 1 || typeof parsed.encrypted_key !== 'string') throw new Error(`the desktop secret key file ${o.file} has an unknown format`);
    let plain: string;
    try {
      plain = await o.cipher.decrypt(Buffer.from(parsed.encrypted_key, 'base64'));
    } catch (err) {
      throw new Error(
        `the desktop secret key in ${o.file} cannot be decrypted by the system keychain (stored with backend ${parsed.backend}, now ${o.cipher.backend()}): ${(err as Error).message}. ` +
          'Credentials stored by the local engine cannot be read until the original keychain is available.',
      );
    }
    const key = Buffer.from(plain, 'base64');
    if (key.length !== SECRET_KEY_BYTES) throw new Error(`the desktop secret key in ${o.file} decrypted to ${key.length} bytes, expected ${SECRET_KEY_BYTES}`);
    return key;
  };

  const create = async (): Promise<Buffer> => {
    if (!(await o.cipher.isAvailable()))
      throw new Error('cannot create the engine secret key: the operating system offers no encryption for it (safeStorage unavailable)');
    const key = randomBytes(SECRET_KEY_BYTES);
    const body: KeyFile = { version: 1, backend: o.cipher.backend(), encrypted_key: (await o.cipher.encrypt(key.toString('base64'))).toString('base64') };
    await fs.mkdir(path.dirname(o.file), { recursive: true, mode: 0o700 });
    const tmp = `${o.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
    try {
      // link() fails when the file exists: a second app instance racing us keeps one key.
      await fs.link(tmp, o.file);
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return decode(await fs.readFile(o.file, 'utf8'));
      throw err;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  };

  const load = async (): Promise<Buffer> => {
    if (o.cipher.backend() === 'basic_text') {
      weak = true;
      o.warn?.(WEAK_KEY_WARNING);
    }
    let raw: string | undefined;
    try {
      raw = await fs.readFile(o.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return raw === undefined ? create() : decode(raw);
  };

  return {
    description: `OS keychain (safeStorage) key ${o.file}`,
    get weak() {
      return weak;
    },
    getKey() {
      cached ??= load().catch((err) => {
        cached = undefined;
        throw err;
      });
      return cached;
    },
  };
}
