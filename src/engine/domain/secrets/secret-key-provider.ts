/**
 * Where the engine's 32-byte secret key comes from. The key encrypts credential values, TOTP
 * secrets and proxy passwords (see secret-cipher.ts) and must never sit in the database.
 *
 * Providers:
 * - `envSecretKeyProvider`: `BROWSERDECK_SECRET_KEY` = base64 of 32 random bytes (server mode,
 *   preferred for operators: keep it in the service manager's secret store).
 * - `fileSecretKeyProvider`: a key file created with mode 0600 on first use (default
 *   `<dataDir>/secret.key`, or `BROWSERDECK_SECRET_KEY_FILE`). Operators should move it out of
 *   the data directory (and point `BROWSERDECK_SECRET_KEY_FILE` at it) or use the env variable,
 *   so that a copy of the data directory alone does not decrypt anything.
 * - Desktop: the desktop main process implements `SecretKeyProvider` over the OS keychain
 *   (Electron `safeStorage`: keep `safeStorage.encryptString(base64Key)` in a file of the app's
 *   user-data dir, decrypt it in `getKey()`), and passes it as `EngineOptions.secretKeyProvider`.
 *   The engine itself never imports electron.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface SecretKeyProvider {
  /** Short description for logs and errors, e.g. "env BROWSERDECK_SECRET_KEY" (never the key). */
  readonly description: string;
  /** Returns the 32-byte key, creating it on first use when the provider can. */
  getKey(): Promise<Buffer>;
}

export const SECRET_KEY_BYTES = 32;

function decodeKey(text: string, source: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`${source} must hold base64 of exactly ${SECRET_KEY_BYTES} bytes (got ${key.length})`);
  return key;
}

export function envSecretKeyProvider(value: string, name = 'BROWSERDECK_SECRET_KEY'): SecretKeyProvider {
  return {
    description: `env ${name}`,
    async getKey() {
      return decodeKey(value, name);
    },
  };
}

/** A base64 key file with mode 0600, created (exclusively, so two engines agree) when missing. */
export function fileSecretKeyProvider(file: string): SecretKeyProvider {
  let cached: Promise<Buffer> | undefined;
  const load = async (): Promise<Buffer> => {
    try {
      return decodeKey(await fs.readFile(file, 'utf8'), file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(SECRET_KEY_BYTES);
    try {
      await fs.writeFile(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
      return key;
    } catch (err) {
      // Another process created it between our read and write: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return decodeKey(await fs.readFile(file, 'utf8'), file);
      throw err;
    }
  };
  return {
    description: `key file ${file}`,
    getKey() {
      cached ??= load().catch((err) => {
        cached = undefined;
        throw err;
      });
      return cached;
    },
  };
}

/** Server-mode default: the env variable when set, else the key file. */
export function defaultSecretKeyProvider(env: NodeJS.ProcessEnv, dataDir: string): SecretKeyProvider {
  if (env.BROWSERDECK_SECRET_KEY) return envSecretKeyProvider(env.BROWSERDECK_SECRET_KEY);
  return fileSecretKeyProvider(env.BROWSERDECK_SECRET_KEY_FILE ?? path.join(dataDir, 'secret.key'));
}
