/**
 * Credential vault: API keys of remote connections, encrypted with the OS keystore through an
 * injected cipher (Electron's async `safeStorage` in the app, a fake in tests) and stored as
 * base64 ciphertext in one JSON file. Plaintext keys leave this module only towards the
 * control plane in main; the renderer gets `mask()`ed forms. On Linux without a keyring,
 * safeStorage falls back to `basic_text` (a hard-coded password): still stored, but reported
 * as weak so the UI can warn.
 */
import type { VaultStatus } from '../shared/ipc/contract.js';
import { readJsonFile, writeJsonFile } from './json-file.js';

export interface Cipher {
  isAvailable(): Promise<boolean>;
  encrypt(plain: string): Promise<Buffer>;
  decrypt(data: Buffer): Promise<string>;
  /** Backend name; `basic_text` means obfuscation only. */
  backend(): string;
}

interface VaultFile {
  version: 1;
  entries: Record<string, string>;
}

export function maskKey(key: string): string {
  if (key.length <= 12) return '…' + key.slice(-2);
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}

export class CredentialVault {
  private cache: VaultFile | undefined;

  constructor(
    private readonly cipher: Cipher,
    private readonly file: string,
  ) {}

  async status(): Promise<VaultStatus> {
    const backend = this.cipher.backend();
    return { backend, available: await this.cipher.isAvailable(), weak: backend === 'basic_text' };
  }

  async put(id: string, key: string): Promise<void> {
    if (!(await this.cipher.isAvailable()))
      throw new Error('cannot store the API key: the operating system offers no encryption for it (safeStorage unavailable)');
    const data = await this.load();
    data.entries[id] = (await this.cipher.encrypt(key)).toString('base64');
    await this.save(data);
  }

  async get(id: string): Promise<string | undefined> {
    const enc = (await this.load()).entries[id];
    if (!enc) return undefined;
    return this.cipher.decrypt(Buffer.from(enc, 'base64'));
  }

  async has(id: string): Promise<boolean> {
    return id in (await this.load()).entries;
  }

  async remove(id: string): Promise<void> {
    const data = await this.load();
    if (!(id in data.entries)) return;
    delete data.entries[id];
    await this.save(data);
  }

  private async load(): Promise<VaultFile> {
    this.cache ??= (await readJsonFile<VaultFile>(this.file)) ?? { version: 1, entries: {} };
    return this.cache;
  }

  private async save(data: VaultFile): Promise<void> {
    await writeJsonFile(this.file, data);
    this.cache = data;
  }
}
