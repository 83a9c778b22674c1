/** Credential vault with an injected cipher: ciphertext on disk only, weak backend flagged, no cipher → refused. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialVault, maskKey } from '../../src/main/credential-vault.js';
import { fakeCipher } from './fake-cipher.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-vault-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('credential vault', () => {
  it('stores keys encrypted, owner-only, and reads them back in a new instance', async () => {
    const cipher = fakeCipher();
    const file = path.join(dir, 'credentials.json');
    const vault = new CredentialVault(cipher, file);
    await vault.put('a', 'bdk_secret-one');
    await vault.put('b', 'bdk_secret-two');
    const raw = await fs.readFile(file, 'utf8');
    expect(raw).not.toContain('bdk_secret');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const again = new CredentialVault(cipher, file);
    expect(await again.get('a')).toBe('bdk_secret-one');
    expect(await again.get('b')).toBe('bdk_secret-two');
    await again.remove('a');
    expect(await new CredentialVault(cipher, file).get('a')).toBeUndefined();
    // Another cipher key cannot read them (the file alone is useless).
    await expect(new CredentialVault(fakeCipher(), file).get('b')).rejects.toThrow();
  });

  it('reports a basic_text backend as weak', async () => {
    expect(await new CredentialVault(fakeCipher({ backend: 'basic_text' }), path.join(dir, 'x.json')).status()).toEqual({
      backend: 'basic_text',
      available: true,
      weak: true,
    });
    expect(await new CredentialVault(fakeCipher({ backend: 'keychain' }), path.join(dir, 'x.json')).status()).toMatchObject({ weak: false });
  });

  it('refuses to store a key when no encryption is available', async () => {
    const vault = new CredentialVault(fakeCipher({ available: false }), path.join(dir, 'c.json'));
    await expect(vault.put('a', 'bdk_x')).rejects.toThrow(/no encryption/);
    await expect(fs.access(path.join(dir, 'c.json'))).rejects.toThrow();
  });

  it('masks keys for the renderer', () => {
    expect(maskKey('bdk_abcdefghijklmnopqrstuvwxyz')).toBe('bdk_ab…wxyz');
    expect(maskKey('short')).not.toContain('sho');
  });
});
