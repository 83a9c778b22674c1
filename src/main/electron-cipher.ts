/** Adapts Electron's async `safeStorage` to the vault's `Cipher` interface. */
import type { SafeStorage } from 'electron';
import type { Cipher } from './credential-vault.js';

export function electronCipher(s: SafeStorage, platform: NodeJS.Platform = process.platform): Cipher {
  return {
    isAvailable: () => s.isAsyncEncryptionAvailable(),
    encrypt: (plain) => s.encryptStringAsync(plain),
    decrypt: async (data) => (await s.decryptStringAsync(data)).result,
    backend: () => (platform === 'linux' ? s.getSelectedStorageBackend() : platform === 'darwin' ? 'keychain' : platform === 'win32' ? 'dpapi' : 'unknown'),
  };
}
