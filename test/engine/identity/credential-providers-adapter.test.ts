/**
 * The pieces between the engine and a provider that need no network: how a 1Password item
 * becomes login values, how SDK errors become kinds without the token, and the access layer's
 * list cache (honours cache_ttl_seconds, never caches failures, starts over on a new token).
 * The cache test uses an in-process adapter that counts calls; it proves the cache, not 1Password.
 */
import { describe, expect, it } from 'vitest';
import { ItemCategory, ItemFieldType, type Item } from '@1password/sdk';
import { onePasswordError, signInAddressOf, valuesOfItem } from '../../../src/engine/domain/credential-providers/onepassword-adapter.js';
import { ProviderAccess } from '../../../src/engine/domain/credential-providers/provider-access.js';
import { ProviderError, splitItemPath, type ProviderAdapter } from '../../../src/engine/domain/credential-providers/provider-adapter.js';
import type { ProviderRow } from '../../../src/engine/domain/credential-providers/credential-providers.js';
import { fakeServiceAccountToken } from './onepassword-fixtures.js';

function item(fields: Item['fields']): Item {
  return {
    id: 'i1',
    title: 'Example',
    category: ItemCategory.Login,
    vaultId: 'v1',
    fields,
    sections: [],
    notes: '',
    tags: [],
    websites: [],
    version: 1,
    files: [],
    createdAt: new Date(),
    updatedAt: new Date(),
  } as unknown as Item;
}

describe('1Password item → login values', () => {
  it('maps username, password, e-mail and the TOTP secret of an otpauth URI', () => {
    const v = valuesOfItem(
      item([
        { id: 'username', title: 'username', fieldType: ItemFieldType.Text, value: 'ann@example.test' },
        { id: 'password', title: 'password', fieldType: ItemFieldType.Concealed, value: 'correct horse' },
        { id: 'x1', title: 'Recovery e-mail', fieldType: ItemFieldType.Email, value: 'backup@example.test' },
        { id: 'x2', title: 'one-time password', fieldType: ItemFieldType.Totp, value: 'otpauth://totp/Example:ann?secret=JBSWY3DPEHPK3PXP&issuer=Example' },
      ]),
    );
    expect(v.values).toMatchObject({ username: 'ann@example.test', password: 'correct horse', email: 'backup@example.test' });
    expect(v.totpSecret).toBe('JBSWY3DPEHPK3PXP');
  });

  it('falls back to the computed code when the TOTP field gives no secret', () => {
    const v = valuesOfItem(item([{ id: 'x', title: 'otp', fieldType: ItemFieldType.Totp, value: '', details: { type: 'Otp', content: { code: '123456' } } }]));
    expect(v).toMatchObject({ totpCode: '123456' });
    expect(v.totpSecret).toBeUndefined();
  });
});

describe('1Password errors', () => {
  it('names the account address, classifies the failure and never repeats the token', () => {
    const token = fakeServiceAccountToken('acme.1password.com');
    expect(signInAddressOf(token)).toBe('acme.1password.com');
    const net = onePasswordError(new Error(`authentication error: reqwest library: error sending request (${token})`), token);
    expect(net).toMatchObject({ kind: 'unreachable' });
    expect(net.message).toMatch(/could not be reached at acme\.1password\.com/);
    expect(net.message).not.toContain(token);
    expect(onePasswordError(new Error('invalid service account token, please ...'), token).kind).toBe('rejected');
    expect(onePasswordError(new Error('something else'), token).kind).toBe('failed');
    expect(splitItemPath('Private/Site/with/slashes')).toEqual({ vault: 'Private', item: 'Site/with/slashes' });
    expect(splitItemPath('nope')).toBeUndefined();
  });
});

describe('provider access cache', () => {
  it('caches lists for cache_ttl_seconds, never caches failures, and starts over on a new token', async () => {
    let now = 0;
    let calls = 0;
    let fail = false;
    const adapter: ProviderAdapter = {
      async listVaults() {
        calls++;
        if (fail) throw new ProviderError('unreachable', 'down');
        return [{ id: 'v', name: `Vault ${calls}` }];
      },
      async listItems() {
        return [];
      },
      async resolve() {
        return { values: {} };
      },
    };
    const made: string[] = [];
    const access = new ProviderAccess({
      clock: { now: () => new Date(now) },
      timeoutMs: 1000,
      tokenOf: (r) => r.token_enc,
      adapterFor: (_t, token) => (made.push(token), adapter),
    });
    const row = { id: 'p', name: 'p', provider_type: 'onepassword', token_enc: 'enc-1', cache_ttl_seconds: 60 } as ProviderRow;
    expect((await access.vaults(row))[0].name).toBe('Vault 1');
    now = 59_000;
    expect((await access.vaults(row))[0].name).toBe('Vault 1');
    now = 60_000;
    expect((await access.vaults(row))[0].name).toBe('Vault 2');
    now = 200_000;
    fail = true;
    await expect(access.vaults(row)).rejects.toMatchObject({ kind: 'unreachable' });
    fail = false;
    expect((await access.vaults(row))[0].name).toBe('Vault 4');
    expect(made).toEqual(['enc-1']);
    expect((await access.vaults({ ...row, token_enc: 'enc-2' }))[0].name).toBe('Vault 5');
    expect(made).toEqual(['enc-1', 'enc-2']);
    const zero = { ...row, id: 'z', cache_ttl_seconds: 0 };
    await access.vaults(zero);
    await access.vaults(zero);
    expect(calls).toBe(7);
  });

  it('auto resolves the matching item by its ids, so a same-titled item elsewhere cannot make it ambiguous', async () => {
    const asked: string[] = [];
    const adapter: ProviderAdapter = {
      async listVaults() {
        return [];
      },
      async listItems() {
        return [
          { id: 'i-other', path: 'Work/Login', title: 'Login', vault_id: 'v1', vault_name: 'Work', urls: ['https://other.test'] },
          { id: 'i-mine', path: 'Work/Login', title: 'Login', vault_id: 'v1', vault_name: 'Work', urls: ['https://login.example.test/signin'] },
        ];
      },
      async resolve(path) {
        asked.push(path);
        return { values: { username: path } };
      },
    };
    const access = new ProviderAccess({ clock: { now: () => new Date(0) }, timeoutMs: 1000, tokenOf: (r) => r.token_enc, adapterFor: () => adapter });
    const row = { id: 'p', name: 'p', provider_type: 'onepassword', token_enc: 'enc', cache_ttl_seconds: 60 } as ProviderRow;
    expect(await access.resolveForDomain(row, 'example.test')).toEqual({ values: { username: 'v1/i-mine' } });
    expect(asked).toEqual(['v1/i-mine']);
    await expect(access.resolveForDomain(row, 'nowhere.test')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('bounds a call that never answers by the deadline', async () => {
    const access = new ProviderAccess({
      clock: { now: () => new Date() },
      timeoutMs: 50,
      tokenOf: () => 't',
      adapterFor: () => ({ listVaults: () => new Promise(() => {}), listItems: () => new Promise(() => {}), resolve: () => new Promise(() => {}) }),
    });
    const row = { id: 'p', name: 'slow', provider_type: 'onepassword', token_enc: 'e', cache_ttl_seconds: 60 } as ProviderRow;
    await expect(access.resolve(row, 'A/B')).rejects.toMatchObject({ kind: 'timeout', message: "1Password (provider 'slow') did not answer within 0.1 s" });
  });
});
