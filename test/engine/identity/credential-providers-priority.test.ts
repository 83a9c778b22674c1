/**
 * `credential: {auto: true}` without a provider: the organization's enabled providers are asked
 * in priority order (lower first, then name) for an item matching the domain — real records in
 * a real SQLite store, and in-process adapters standing in for 1Password (which this machine
 * cannot reach); the selection logic is what is under test, not the SDK.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/engine/store/database.js';
import { CredentialProviders, type ProviderRow } from '../../../src/engine/domain/credential-providers/credential-providers.js';
import { ProviderAccess } from '../../../src/engine/domain/credential-providers/provider-access.js';
import { ProviderService, isProviderRef } from '../../../src/engine/domain/credential-providers/provider-service.js';
import { ProviderError, type ProviderAdapter, type ProviderItem } from '../../../src/engine/domain/credential-providers/provider-adapter.js';
import { SecretCipher } from '../../../src/engine/domain/secrets/secret-cipher.js';
import { envSecretKeyProvider } from '../../../src/engine/domain/secrets/secret-key-provider.js';
import { ResourceChanges } from '../../../src/engine/events/resource-changes.js';

let store: Store;
let dir: string;
let records: CredentialProviders;
/** What each provider (by token) offers: items, or a failure. */
const offers = new Map<string, ProviderItem[] | ProviderError>();
const asked: string[] = [];
let service: ProviderService;

function adapterFor(token: string): ProviderAdapter {
  return {
    async listVaults() {
      return [];
    },
    async listItems() {
      asked.push(token);
      const o = offers.get(token);
      if (o instanceof ProviderError) throw o;
      return o ?? [];
    },
    async resolve(itemPath) {
      return { values: { username: `${token}:${itemPath}` } };
    },
  };
}

const item = (id: string, url: string): ProviderItem => ({ id, path: `Vault/${id}`, title: id, vault_id: 'v', vault_name: 'Vault', urls: [url] });

async function provider(org: string, name: string, priority: number, opts: { enabled?: boolean } = {}): Promise<ProviderRow> {
  const row = await records.create(org, { token: name, name, provider_type: 'onepassword', cache_ttl_seconds: 0 });
  return records.update(org, row.id, { priority, ...(opts.enabled === false ? { enabled: false } : {}) });
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-cp-priority-'));
  store = await openStore({ dataDir: dir });
  const cipher = new SecretCipher(envSecretKeyProvider(crypto.randomBytes(32).toString('base64')));
  await cipher.ready();
  records = new CredentialProviders(store.db, { now: () => new Date() }, cipher, new ResourceChanges());
  const access = new ProviderAccess({
    clock: { now: () => new Date() },
    timeoutMs: 2000,
    tokenOf: (r) => records.tokenOf(r),
    adapterFor: (_type, token) => adapterFor(token),
  });
  service = new ProviderService(records, access);
});
afterAll(async () => {
  await store?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('credential providers by priority (auto without a provider)', () => {
  it('is a provider reference only without a stored credential name', () => {
    expect(isProviderRef({ auto: true })).toBe(true);
    expect(isProviderRef({ provider: 'p', path: 'A/B' })).toBe(true);
    expect(isProviderRef({ name: 'stored' })).toBe(false);
    expect(isProviderRef({ name: 'stored', auto: true })).toBe(false);
    expect(isProviderRef(undefined)).toBe(false);
  });

  it('asks enabled providers lowest priority first and takes the first with an item for the domain', async () => {
    const org = 'org-order';
    await provider(org, 'zeta-first', 0);
    await provider(org, 'alpha-third', 5);
    await provider(org, 'beta-second', 2);
    await provider(org, 'off', -10, { enabled: false });
    offers.set('zeta-first', [item('elsewhere', 'https://other.test')]);
    offers.set('beta-second', [item('mine', 'https://login.example.test/')]);
    offers.set('alpha-third', [item('also', 'https://example.test/')]);
    offers.set('off', [item('never', 'https://example.test/')]);
    asked.length = 0;
    expect(await service.valuesFor(org, { auto: true }, 'example.test')).toEqual({ values: { username: 'beta-second:v/mine' } });
    expect(asked).toEqual(['zeta-first', 'beta-second']);
    expect(await service.usable(org, { auto: true })).toBe(true);

    // Re-ranked: the third now answers first.
    const third = (await records.find(org, 'alpha-third'))!;
    await records.update(org, third.id, { priority: 1 });
    asked.length = 0;
    expect(await service.valuesFor(org, { auto: true }, 'example.test')).toEqual({ values: { username: 'alpha-third:v/also' } });
    expect(asked).toEqual(['zeta-first', 'alpha-third']);
  });

  it('stops at a provider that cannot answer instead of falling through to a lower-ranked one', async () => {
    const org = 'org-down';
    await provider(org, 'down', 0);
    await provider(org, 'backup', 1);
    offers.set('down', new ProviderError('unreachable', '1Password could not be reached'));
    offers.set('backup', [item('b', 'https://example.test/')]);
    asked.length = 0;
    await expect(service.valuesFor(org, { auto: true }, 'example.test')).rejects.toMatchObject({
      kind: 'unreachable',
      message: "'down': 1Password could not be reached",
    });
    expect(asked).toEqual(['down']);
  });

  it('says which providers were asked when none has an item, and when none is enabled', async () => {
    const org = 'org-none';
    await expect(service.valuesFor(org, { auto: true }, 'example.test')).rejects.toMatchObject({
      kind: 'not_found',
      message: /no credential provider of the organization is enabled/,
    });
    expect(await service.usable(org, { auto: true })).toBe(false);
    await provider(org, 'empty-one', 0);
    await provider(org, 'empty-two', 1);
    offers.set('empty-one', []);
    offers.set('empty-two', [item('x', 'https://other.test/')]);
    await expect(service.valuesFor(org, { auto: true }, 'example.test')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'none of the enabled credential providers (empty-one, empty-two) has an item for example.test',
    });
  });
});
