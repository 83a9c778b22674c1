/**
 * Calls into providers for the engine: one signed-in adapter per provider token (kept until the
 * token changes or the provider is deleted), each call bounded by a deadline, and the vault and
 * item lists cached for the provider's `cache_ttl_seconds`. Failures are never cached, so a
 * fixed token or network works on the next call. Resolved item values are not cached: they are
 * secrets and are asked for only when a login flow needs them.
 */
import type { Clock } from '../../../shared/clock.js';
import { ProviderError, type ProviderAdapter, type ProviderItem, type ProviderVault, type ResolvedItem } from './provider-adapter.js';
import type { ProviderRow } from './credential-providers.js';

export type AdapterFactory = (type: string, token: string) => ProviderAdapter;

interface Entry {
  /** The token ciphertext the adapter was made for: a new token (new IV) means a new entry. */
  tokenEnc: string;
  adapter: ProviderAdapter;
  lists: Map<'vaults' | 'items', { at: number; value: unknown }>;
}

/** Races `work` against `ms`; the loser's result is dropped (the SDK cannot be cancelled). */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => {}); // a late failure after the deadline must not become an unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('timeout', `${what} did not answer within ${Math.round(ms / 100) / 10} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const LABEL: Record<string, string> = { onepassword: '1Password' };

export class ProviderAccess {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly d: {
      clock: Clock;
      timeoutMs: number;
      tokenOf(row: ProviderRow): string;
      adapterFor: AdapterFactory;
    },
  ) {}

  private entry(row: ProviderRow): Entry {
    const e = this.entries.get(row.id);
    if (e && e.tokenEnc === row.token_enc) return e;
    const fresh: Entry = { tokenEnc: row.token_enc, adapter: this.d.adapterFor(row.provider_type, this.d.tokenOf(row)), lists: new Map() };
    this.entries.set(row.id, fresh);
    return fresh;
  }

  private bounded<T>(row: ProviderRow, work: (a: ProviderAdapter) => Promise<T>): Promise<T> {
    let started: Promise<T>;
    try {
      started = work(this.entry(row).adapter);
    } catch (err) {
      started = Promise.reject(err);
    }
    return withDeadline(started, this.d.timeoutMs, `${LABEL[row.provider_type] ?? row.provider_type} (provider '${row.name}')`);
  }

  private async cached<T>(row: ProviderRow, key: 'vaults' | 'items', load: (a: ProviderAdapter) => Promise<T>): Promise<T> {
    const e = this.entry(row);
    const hit = e.lists.get(key);
    const now = this.d.clock.now().getTime();
    if (hit && now - hit.at < row.cache_ttl_seconds * 1000) return hit.value as T;
    const value = await this.bounded(row, load);
    e.lists.set(key, { at: now, value });
    return value;
  }

  vaults(row: ProviderRow): Promise<ProviderVault[]> {
    return this.cached(row, 'vaults', (a) => a.listVaults());
  }

  items(row: ProviderRow): Promise<ProviderItem[]> {
    return this.cached(row, 'items', (a) => a.listItems());
  }

  resolve(row: ProviderRow, path: string): Promise<ResolvedItem> {
    return this.bounded(row, (a) => a.resolve(path));
  }

  /** The item for a domain (`auto: true`): the first whose URL's host is the domain or below it. */
  async resolveForDomain(row: ProviderRow, domain: string): Promise<ResolvedItem> {
    const hostOf = (u: string): string => {
      try {
        return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(u) ? u : `https://${u}`).hostname.toLowerCase();
      } catch {
        return '';
      }
    };
    const match = (await this.items(row)).find((it) =>
      (it.urls ?? []).some((u) => {
        const h = hostOf(u);
        return h === domain || h.endsWith(`.${domain}`) || domain.endsWith(`.${h}`);
      }),
    );
    if (!match) throw new ProviderError('not_found', `provider '${row.name}' has no login item for ${domain}`);
    // By ids, not by its "Vault/Title" path: another item of the same title must not make it ambiguous.
    return this.resolve(row, `${match.vault_id}/${match.id}`);
  }

  forget(id: string): void {
    this.entries.delete(id);
  }
}
