/**
 * Connections: the embedded local engine plus any number of remote Browserdeck servers. Their
 * names and URLs (and the masked key) persist in `connections.json`; keys go to the vault.
 * One connection is active — the one the control plane talks to. A poller checks each
 * connection's `/healthz` and reports changes to `onChange` (main forwards them to the
 * renderer as `connections:changed`).
 */
import { randomUUID } from 'node:crypto';
import type { ConnectionInfo, Health } from '../shared/ipc/contract.js';
import type { CredentialVault } from './credential-vault.js';
import { maskKey } from './credential-vault.js';
import { readJsonFile, writeJsonFile } from './json-file.js';

export const LOCAL_ID = 'local';

interface StoredConnection {
  id: string;
  name: string;
  url: string;
  maskedKey: string;
}

interface ConnectionsFile {
  version: 1;
  active: string;
  remotes: StoredConnection[];
}

export interface Target {
  id: string;
  url: string;
  apiKey: string;
}

export interface ConnectionsDeps {
  file: string;
  vault: CredentialVault;
  /** The embedded engine, once started (null while it starts or when it failed). */
  local: () => { url: string; apiKey: string } | null;
  /** Resolves when `GET {url}/healthz` answers 2xx; rejects with the reason otherwise. */
  checkHealth: (url: string) => Promise<void>;
  /** Verifies that the key works against the server (e.g. lists projects); rejects with the server's message. */
  verifyKey: (url: string, apiKey: string) => Promise<void>;
  onChange?: (list: ConnectionInfo[]) => void;
}

/** Normalizes a server address: http(s) only, no credentials, query or fragment, no trailing slash. */
export function normalizeServerUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error(`not a valid URL: ${raw}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('the server URL must start with http:// or https://');
  if (u.username || u.password) throw new Error('put the API key in its own field, not in the URL');
  if (u.search || u.hash) throw new Error('the server URL must not have a query or fragment');
  return u.toString().replace(/\/+$/, '');
}

export class Connections {
  private data: ConnectionsFile = { version: 1, active: LOCAL_ID, remotes: [] };
  private readonly health = new Map<string, { health: Health; message?: string }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ConnectionsDeps) {}

  async load(): Promise<void> {
    const stored = await readJsonFile<ConnectionsFile>(this.deps.file);
    if (stored && stored.version === 1 && Array.isArray(stored.remotes)) this.data = stored;
    if (this.data.active !== LOCAL_ID && !this.data.remotes.some((r) => r.id === this.data.active)) this.data.active = LOCAL_ID;
  }

  list(): ConnectionInfo[] {
    const local = this.deps.local();
    const all: ConnectionInfo[] = [
      {
        id: LOCAL_ID,
        kind: 'local',
        name: 'This computer',
        url: local?.url ?? '',
        maskedKey: null,
        ...this.healthOf(LOCAL_ID),
        active: this.data.active === LOCAL_ID,
      },
      ...this.data.remotes.map((r) => ({
        id: r.id,
        kind: 'remote' as const,
        name: r.name,
        url: r.url,
        maskedKey: r.maskedKey,
        ...this.healthOf(r.id),
        active: this.data.active === r.id,
      })),
    ];
    return all;
  }

  get(id: string): ConnectionInfo {
    const c = this.list().find((x) => x.id === id);
    if (!c) throw new Error(`no connection with id ${id}`);
    return c;
  }

  async add(input: { name: string; url: string; apiKey: string }): Promise<ConnectionInfo> {
    const name = input.name.trim();
    if (!name) throw new Error('give the connection a name');
    const url = normalizeServerUrl(input.url);
    const apiKey = input.apiKey.trim();
    await this.deps.verifyKey(url, apiKey);
    const id = randomUUID();
    await this.deps.vault.put(id, apiKey);
    this.data.remotes.push({ id, name, url, maskedKey: maskKey(apiKey) });
    this.health.set(id, { health: 'ok' });
    await this.persist();
    return this.get(id);
  }

  async remove(id: string): Promise<ConnectionInfo[]> {
    if (id === LOCAL_ID) throw new Error('the local engine cannot be removed');
    const before = this.data.remotes.length;
    this.data.remotes = this.data.remotes.filter((r) => r.id !== id);
    if (this.data.remotes.length === before) throw new Error(`no connection with id ${id}`);
    if (this.data.active === id) this.data.active = LOCAL_ID;
    await this.deps.vault.remove(id);
    this.health.delete(id);
    await this.persist();
    return this.list();
  }

  async activate(id: string): Promise<ConnectionInfo> {
    this.get(id);
    this.data.active = id;
    await this.persist();
    return this.get(id);
  }

  /** Where control-plane calls go now, with the key; throws with a message the UI can show. */
  async activeTarget(): Promise<Target> {
    const id = this.data.active;
    if (id === LOCAL_ID) {
      const local = this.deps.local();
      if (!local) throw new Error('the local engine is not running');
      return { id, ...local };
    }
    const r = this.data.remotes.find((x) => x.id === id);
    if (!r) throw new Error('the active connection no longer exists');
    const apiKey = await this.deps.vault.get(id);
    if (!apiKey) throw new Error(`no API key stored for ${r.name}; remove and add the connection again`);
    return { id, url: r.url, apiKey };
  }

  async check(id: string): Promise<ConnectionInfo> {
    const c = this.get(id);
    let next: { health: Health; message?: string };
    if (!c.url) next = { health: 'down', message: 'not started' };
    else {
      try {
        await this.deps.checkHealth(c.url);
        next = { health: 'ok' };
      } catch (err) {
        next = { health: 'down', message: err instanceof Error ? err.message : String(err) };
      }
    }
    const prev = this.health.get(id);
    this.health.set(id, next);
    if (prev?.health !== next.health || prev?.message !== next.message) this.deps.onChange?.(this.list());
    return this.get(id);
  }

  async checkAll(): Promise<void> {
    await Promise.all(this.list().map((c) => this.check(c.id)));
  }

  startPolling(intervalMs: number): void {
    this.stopPolling();
    void this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), intervalMs);
    this.timer.unref();
  }

  stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private healthOf(id: string): { health: Health; healthMessage?: string } {
    const h = this.health.get(id);
    return h ? { health: h.health, ...(h.message ? { healthMessage: h.message } : {}) } : { health: 'unknown' };
  }

  private async persist(): Promise<void> {
    await writeJsonFile(this.deps.file, this.data);
    this.deps.onChange?.(this.list());
  }
}
