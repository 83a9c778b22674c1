/**
 * What the rest of the engine asks of credential providers: the connection test (always an
 * answer, never an error), the item list (an Error object with 502/503 when the provider cannot
 * answer), checking an auth connection's `credential: {provider, path|auto}` reference, and the
 * login values of that reference for a login flow (ProviderError on any failure).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { CredentialProviders, ProviderRow } from './credential-providers.js';
import { ProviderError, splitItemPath, type ProviderItem, type ProviderVault, type ResolvedItem } from './provider-adapter.js';
import type { ProviderAccess } from './provider-access.js';

export interface ProviderRef {
  provider?: string;
  path?: string;
  auto?: boolean;
}

/**
 * Whether a connection's credential comes from credential providers: a named provider, or
 * `auto: true` alone (the enabled providers, by priority, the first with an item for the domain).
 */
export function isProviderRef(ref: (ProviderRef & { name?: string }) | undefined): boolean {
  return !!ref && (!!ref.provider || (!!ref.auto && !ref.name));
}

/** How a reference names its provider(s) in messages. */
export function providerLabel(ref: ProviderRef): string {
  return ref.provider ? `credential provider '${ref.provider}'` : 'credential providers (auto)';
}

export function httpErrorOf(err: unknown): DomainError {
  if (!(err instanceof ProviderError)) return err instanceof DomainError ? err : new DomainError(502, 'credential_provider_error', (err as Error).message);
  switch (err.kind) {
    case 'unreachable':
    case 'timeout':
      return new DomainError(503, 'credential_provider_unavailable', err.message, [], { afterSeconds: 30 });
    case 'not_found':
      return new DomainError(404, 'not_found', err.message);
    case 'disabled':
      return DomainError.unprocessable(err.message, 'credential_provider_disabled');
    default:
      return new DomainError(502, 'credential_provider_error', err.message);
  }
}

export class ProviderService {
  constructor(
    readonly records: CredentialProviders,
    private readonly access: ProviderAccess,
  ) {}

  async test(row: ProviderRow): Promise<{ success: boolean; vaults: ProviderVault[]; error?: string }> {
    try {
      return { success: true, vaults: await this.access.vaults(row) };
    } catch (err) {
      return { success: false, vaults: [], error: (err as Error).message || 'the provider test failed' };
    }
  }

  async items(row: ProviderRow): Promise<ProviderItem[]> {
    try {
      return await this.access.items(row);
    } catch (err) {
      throw httpErrorOf(err);
    }
  }

  forget(id: string): void {
    this.access.forget(id);
  }

  /** Validates a connection's provider reference when it is saved: the provider must exist in the org. */
  async checkRef(orgId: string, ref: ProviderRef | undefined): Promise<void> {
    if (!ref?.provider) return;
    if (!(await this.records.find(orgId, ref.provider))) {
      throw new DomainError(404, 'not_found', `credential.provider: credential provider '${ref.provider}' not found`, [
        { code: 'invalid_field', message: `credential.provider: no credential provider named or with id '${ref.provider}'` },
      ]);
    }
    if (ref.path !== undefined && !splitItemPath(ref.path)) throw DomainError.invalidField('credential.path', 'must be "Vault/Item"');
  }

  /** Whether a login flow could use the reference now (for can_reauth): the provider (auto: any provider) exists and is enabled. */
  async usable(orgId: string, ref: ProviderRef): Promise<boolean> {
    if (!ref.provider) return (await this.records.enabledByPriority(orgId)).length > 0;
    const row = await this.records.find(orgId, ref.provider);
    return !!row && row.enabled === 1;
  }

  /** The login values of a reference, for a login flow. Throws ProviderError with a message naming what failed. */
  async valuesFor(orgId: string, ref: ProviderRef, domain: string): Promise<ResolvedItem> {
    if (!ref.provider) return this.firstMatch(orgId, domain);
    const row = await this.records.find(orgId, ref.provider);
    if (!row) throw new ProviderError('not_found', `credential provider '${ref.provider ?? ''}' no longer exists`);
    if (row.enabled !== 1) throw new ProviderError('disabled', `credential provider '${row.name}' is disabled (enabled: false)`);
    if (ref.path) return this.access.resolve(row, ref.path);
    if (ref.auto) return this.access.resolveForDomain(row, domain);
    throw new ProviderError('not_found', 'the credential names a provider but neither path nor auto');
  }

  /**
   * `auto: true` without a provider: the enabled providers in priority order (lower first); the
   * first with an item for the domain answers. A provider without one is skipped; one that
   * cannot answer stops the search — a lower-priority provider must not silently stand in for
   * the one the organization ranked first.
   */
  private async firstMatch(orgId: string, domain: string): Promise<ResolvedItem> {
    const rows = await this.records.enabledByPriority(orgId);
    if (!rows.length) throw new ProviderError('not_found', 'no credential provider of the organization is enabled');
    for (const row of rows) {
      try {
        return await this.access.resolveForDomain(row, domain);
      } catch (err) {
        if (err instanceof ProviderError && err.kind === 'not_found') continue;
        if (err instanceof ProviderError) throw new ProviderError(err.kind, `'${row.name}': ${err.message}`);
        throw err;
      }
    }
    throw new ProviderError('not_found', `none of the enabled credential providers (${rows.map((r) => r.name).join(', ')}) has an item for ${domain}`);
  }
}
