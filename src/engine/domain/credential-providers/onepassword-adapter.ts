/**
 * The 1Password adapter, on the official SDK (`@1password/sdk`, a WASM core that talks to the
 * account named inside the service account token). The SDK cannot be cancelled, so callers
 * race it against a deadline (provider-access.ts); its errors are plain strings, turned here
 * into ProviderError kinds with messages that name the account address — never the token.
 */
import { createClient, ItemCategory, ItemFieldType, type Client, type Item } from '@1password/sdk';
import { ProviderError, splitItemPath, type ProviderAdapter, type ProviderItem, type ProviderVault, type ResolvedItem } from './provider-adapter.js';

const INTEGRATION = { integrationName: 'Browserdeck', integrationVersion: '0.1.0' };
const LOGIN_CATEGORIES = new Set<string>([ItemCategory.Login, ItemCategory.Password]);

/** The account address a service account token signs in to (part of the token's JSON), for messages. */
export function signInAddressOf(token: string): string | undefined {
  try {
    const json = JSON.parse(Buffer.from(token.replace(/^ops_/, ''), 'base64url').toString('utf8')) as { signInAddress?: unknown };
    return typeof json.signInAddress === 'string' ? json.signInAddress : undefined;
  } catch {
    return undefined;
  }
}

/** Maps an SDK failure to a kind and a message without the token in it. */
export function onePasswordError(err: unknown, token: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const raw = String((err as Error)?.message ?? err)
    .split(token)
    .join('[REDACTED]');
  const where = signInAddressOf(token);
  if (/error sending request|request library|dns|connect|timed out|network/i.test(raw)) {
    return new ProviderError('unreachable', `1Password could not be reached${where ? ` at ${where}` : ''}: ${raw}`);
  }
  if (/invalid service account token|unauthori[sz]ed|forbidden|expired|revoked|invalid.*token/i.test(raw)) {
    return new ProviderError('rejected', `1Password rejected the service account token: ${raw}`);
  }
  return new ProviderError('failed', `1Password request failed: ${raw}`);
}

function otpSecretOf(value: string): string | undefined {
  if (value.startsWith('otpauth://')) {
    try {
      return new URL(value).searchParams.get('secret') ?? undefined;
    } catch {
      return undefined;
    }
  }
  return /^[A-Za-z2-7\s=-]{16,}$/.test(value) ? value : undefined;
}

/** Username/password/one-time-password of a 1Password item, named the way stored credentials name them. */
export function valuesOfItem(item: Item): ResolvedItem {
  const values: Record<string, string> = {};
  const out: ResolvedItem = { values };
  for (const f of item.fields) {
    if (f.fieldType === ItemFieldType.Totp) {
      const secret = otpSecretOf(f.value);
      if (secret) out.totpSecret = secret;
      else if (f.details?.type === 'Otp' && f.details.content.code) out.totpCode = f.details.content.code;
      continue;
    }
    if (!f.value) continue;
    const title = f.title.trim().toLowerCase();
    if (f.id === 'username' || (!values.username && (title === 'username' || title === 'user name' || title === 'login'))) values.username = f.value;
    else if (f.id === 'password' || (!values.password && f.fieldType === ItemFieldType.Concealed && title === 'password')) values.password = f.value;
    else if (f.fieldType === ItemFieldType.Email && !values.email) values.email = f.value;
    // Other text fields by title, so a page field of the same name can be filled.
    if (title && !(title in values) && (f.fieldType === ItemFieldType.Text || f.fieldType === ItemFieldType.Email || f.fieldType === ItemFieldType.Concealed))
      values[title] = f.value;
  }
  return out;
}

export class OnePasswordAdapter implements ProviderAdapter {
  private client?: Promise<Client>;

  constructor(private readonly token: string) {}

  private async call<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    this.client ??= createClient({ auth: this.token, ...INTEGRATION }).catch((err: unknown) => {
      this.client = undefined; // sign in again next time
      throw err;
    });
    try {
      return await fn(await this.client);
    } catch (err) {
      throw onePasswordError(err, this.token);
    }
  }

  listVaults(): Promise<ProviderVault[]> {
    return this.call(async (c) => (await c.vaults.list()).map((v) => ({ id: v.id, name: v.title })));
  }

  listItems(): Promise<ProviderItem[]> {
    return this.call(async (c) => {
      const items: ProviderItem[] = [];
      for (const v of await c.vaults.list()) {
        for (const it of await c.items.list(v.id)) {
          if (!LOGIN_CATEGORIES.has(it.category)) continue;
          const urls = it.websites.map((w) => w.url).filter(Boolean);
          items.push({ id: it.id, path: `${v.title}/${it.title}`, title: it.title, vault_id: v.id, vault_name: v.title, ...(urls.length ? { urls } : {}) });
        }
      }
      return items;
    });
  }

  resolve(path: string): Promise<ResolvedItem> {
    const parts = splitItemPath(path);
    if (!parts) return Promise.reject(new ProviderError('not_found', `'${path}' is not a "Vault/Item" path`));
    return this.call(async (c) => {
      const vaults = (await c.vaults.list()).filter((v) => v.title === parts.vault || v.id === parts.vault);
      if (vaults.length === 0) throw new ProviderError('not_found', `no vault named '${parts.vault}' is readable with this token`);
      const matches = (await c.items.list(vaults[0].id)).filter((it) => it.title === parts.item || it.id === parts.item);
      if (matches.length === 0) throw new ProviderError('not_found', `no item '${parts.item}' in vault '${parts.vault}'`);
      if (matches.length > 1)
        throw new ProviderError('failed', `${matches.length} items are named '${parts.item}' in vault '${parts.vault}'; rename one or use its id`);
      return valuesOfItem(await c.items.get(vaults[0].id, matches[0].id));
    });
  }
}
