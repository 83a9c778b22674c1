/**
 * What the engine needs from an external password manager, whatever it is: the vaults a token
 * can read, the login items in them, and the fields of one item by its "Vault/Item" path.
 * Adapters report failures as ProviderError with a kind, so callers can answer the right status
 * (unreachable → 503, rejected token or bad answer → 502, unknown path → 404) and message.
 */

export interface ProviderVault {
  id: string;
  name: string;
}

export interface ProviderItem {
  id: string;
  /** "VaultName/ItemTitle": how auth connections reference the item. */
  path: string;
  title: string;
  vault_id: string;
  vault_name: string;
  urls?: string[];
}

/** The login values of an item, in the shape stored credentials give login flows. */
export interface ResolvedItem {
  values: Record<string, string>;
  /** Base32 TOTP secret when the item has a one-time-password field. */
  totpSecret?: string;
  /** A code the provider computed, when it gave no secret. */
  totpCode?: string;
}

export interface ProviderAdapter {
  // No AbortSignal: the 1Password SDK cannot be cancelled; provider-access.ts bounds each call.
  listVaults(): Promise<ProviderVault[]>;
  listItems(): Promise<ProviderItem[]>;
  resolve(path: string): Promise<ResolvedItem>;
}

export type ProviderErrorKind = 'unreachable' | 'timeout' | 'rejected' | 'not_found' | 'disabled' | 'failed';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Splits "Vault/Item" at the first slash (item titles may contain slashes; vault names rarely do). */
export function splitItemPath(path: string): { vault: string; item: string } | undefined {
  const i = path.indexOf('/');
  if (i <= 0 || i === path.length - 1) return undefined;
  return { vault: path.slice(0, i), item: path.slice(i + 1) };
}
