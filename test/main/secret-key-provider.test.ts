/**
 * The desktop engine secret key behind the OS keychain (safeStorage stand-in: a real AES cipher):
 * only ciphertext on disk, the same key across two engine-host starts (a credential created in
 * the first start reads back in the second), a clear failure with another keychain, and the
 * basic_text backend reported as weak.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineHost } from '../../src/main/engine-host.js';
import { keychainSecretKeyProvider, WEAK_KEY_WARNING } from '../../src/main/secret-key-provider.js';
import { fakeCipher } from './fake-cipher.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-seckey-'));
  dirs.push(d);
  return d;
}

describe('desktop secret key provider', () => {
  it('keeps the key only as keychain ciphertext and reuses it across engine-host starts', async () => {
    const userData = await tempDir();
    const cipher = fakeCipher();
    const file = path.join(userData, 'engine-secret-key.json');
    const dataDir = path.join(userData, 'engine');

    const first = new EngineHost({ dataDir, logLevel: 'silent', secretKeyProvider: keychainSecretKeyProvider({ cipher, file }) });
    const a = await first.start();
    let credId: string;
    try {
      const client = new Kernel({ apiKey: a.apiKey, baseURL: a.url, maxRetries: 0 });
      const cred = await client.credentials.create({ name: 'desk-login', domain: 'example.test', values: { username: 'ann', password: 'p4ss-in-keychain' } });
      credId = cred.id;
    } finally {
      await first.stop();
    }

    // On disk: a JSON envelope with ciphertext only, owner-readable only; no server-mode key file.
    const raw = await fs.readFile(file, 'utf8');
    const stored = JSON.parse(raw) as { version: number; backend: string; encrypted_key: string };
    expect(stored).toMatchObject({ version: 1, backend: 'gnome_libsecret' });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const key = await keychainSecretKeyProvider({ cipher, file }).getKey();
    expect(key).toHaveLength(32);
    const ciphertext = Buffer.from(stored.encrypted_key, 'base64');
    expect(ciphertext.includes(key)).toBe(false);
    expect(raw).not.toContain(key.toString('base64'));
    expect(raw).not.toContain(key.toString('hex'));
    expect(await cipher.decrypt(ciphertext)).toBe(key.toString('base64'));
    await expect(fs.access(path.join(dataDir, 'secret.key'))).rejects.toThrow();

    // Second start (a new provider instance, as after an app restart): the same key reads the credential.
    const second = new EngineHost({ dataDir, logLevel: 'silent', secretKeyProvider: keychainSecretKeyProvider({ cipher, file }) });
    const b = await second.start();
    try {
      const client = new Kernel({ apiKey: b.apiKey, baseURL: b.url, maxRetries: 0 });
      const cred = await client.credentials.retrieve(credId);
      expect(cred.name).toBe('desk-login');
      expect([...cred.value_keys!].sort()).toEqual(['password', 'username']);
      // The stored values decrypt (TOTP-less credential: patch merges with the decrypted old values).
      const patched = await client.credentials.update(credId, { values: { otp_hint: 'x' } });
      expect([...patched.value_keys!].sort()).toEqual(['otp_hint', 'password', 'username']);
    } finally {
      await second.stop();
    }
    expect(await fs.readFile(file, 'utf8')).toBe(raw); // created once, never rewritten
  });

  it('fails the engine start clearly when the keychain cannot decrypt the key', async () => {
    const userData = await tempDir();
    const file = path.join(userData, 'engine-secret-key.json');
    await keychainSecretKeyProvider({ cipher: fakeCipher(), file }).getKey();
    const before = await fs.readFile(file, 'utf8');

    const other = keychainSecretKeyProvider({ cipher: fakeCipher({ backend: 'kwallet5' }), file });
    await expect(other.getKey()).rejects.toThrow(/cannot be decrypted by the system keychain \(stored with backend gnome_libsecret, now kwallet5\)/);
    const host = new EngineHost({ dataDir: path.join(userData, 'engine'), logLevel: 'silent', secretKeyProvider: other });
    await expect(host.start()).rejects.toThrow(/cannot be decrypted by the system keychain/);
    await host.stop();
    expect(await fs.readFile(file, 'utf8')).toBe(before); // the failure never replaces the key

    await fs.writeFile(file, 'not json');
    await expect(keychainSecretKeyProvider({ cipher: fakeCipher(), file }).getKey()).rejects.toThrow(/not valid JSON/);
  });

  it('refuses to create a key without encryption, and reports basic_text as weak', async () => {
    const userData = await tempDir();
    const file = path.join(userData, 'k.json');
    await expect(keychainSecretKeyProvider({ cipher: fakeCipher({ available: false }), file }).getKey()).rejects.toThrow(/no encryption/);
    await expect(fs.access(file)).rejects.toThrow();

    const warnings: string[] = [];
    const weak = keychainSecretKeyProvider({ cipher: fakeCipher({ backend: 'basic_text' }), file, warn: (m) => warnings.push(m) });
    expect(await weak.getKey()).toHaveLength(32);
    expect(weak.weak).toBe(true);
    expect(warnings).toEqual([WEAK_KEY_WARNING]);

    const strong = keychainSecretKeyProvider({
      cipher: fakeCipher({ backend: 'gnome_libsecret' }),
      file: path.join(userData, 'k2.json'),
      warn: (m) => warnings.push(m),
    });
    await strong.getKey();
    expect(strong.weak).toBe(false);
    expect(warnings).toHaveLength(1);
  });
});
