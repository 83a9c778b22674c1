import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { decodeBase32, encodeBase32, hotp, totp, totpFromSecret } from '../../../src/engine/domain/credentials/totp.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

// RFC 6238 appendix B: the seeds are ASCII "1234567890" repeated to the key length.
const seed = (n: number) => Buffer.from('1234567890'.repeat(7).slice(0, n));
const RFC6238: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP', () => {
  it('matches the RFC 6238 test vectors for SHA-1, SHA-256 and SHA-512', () => {
    for (const [secs, sha1, sha256, sha512] of RFC6238) {
      const at = new Date(secs * 1000);
      expect(totp(seed(20), at, { digits: 8, algorithm: 'sha1' }).code).toBe(sha1);
      expect(totp(seed(32), at, { digits: 8, algorithm: 'sha256' }).code).toBe(sha256);
      expect(totp(seed(64), at, { digits: 8, algorithm: 'sha512' }).code).toBe(sha512);
    }
  });

  it('matches the RFC 4226 HOTP vectors and round-trips base32', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expected.forEach((code, i) => expect(hotp(seed(20), i)).toBe(code));
    expect(decodeBase32(encodeBase32(seed(20))).equals(seed(20))).toBe(true);
    expect(decodeBase32('gezd gnbv-gy3t qojq')).toEqual(Buffer.from('1234567890'));
  });
});

describe('credentials', () => {
  const secret = encodeBase32(seed(20));

  it('creates, gets by id and name, lists, patches and deletes without ever returning values', async () => {
    const created = await t.client.credentials.create({ name: 'acme-login', domain: 'acme.test', values: { username: 'ann', password: 's3cret-pw' } });
    expect(created).toMatchObject({ name: 'acme-login', domain: 'acme.test', has_values: true, has_totp_secret: false, value_keys: ['password', 'username'] });
    expect(created.totp_code).toBeUndefined();
    expect(JSON.stringify(created)).not.toContain('s3cret-pw');

    const byName = await t.client.credentials.retrieve('acme-login');
    expect(byName.id).toBe(created.id);
    expect(byName.value_keys).toEqual(['password', 'username']);

    await t.client.credentials.create({ name: 'other', domain: 'other.test', values: {} });
    const all = [];
    for await (const c of t.client.credentials.list({ limit: 1 })) all.push(c);
    expect(all.map((c) => c.name)).toEqual(['acme-login', 'other']);
    expect(all[0].value_keys).toBeUndefined();
    expect((await t.client.credentials.list({ domain: 'acme.test' })).items.map((c) => c.name)).toEqual(['acme-login']);
    expect((await t.client.credentials.list({ query: 'OTHER' })).items.map((c) => c.name)).toEqual(['other']);
    expect((await t.client.credentials.list({ query: created.id })).items.map((c) => c.id)).toEqual([created.id]);

    const patched = await t.client.credentials.update(created.id, {
      remove_value_keys: ['username', 'password'],
      values: { password: 'new-pw', otp_hint: 'x' },
      sso_provider: 'google',
    });
    expect(patched.value_keys).toEqual(['otp_hint', 'password']);
    expect(patched.sso_provider).toBe('google');
    const cleared = await t.client.credentials.update(created.id, { sso_provider: '' });
    expect(cleared.sso_provider).toBeNull();

    await expect(t.client.credentials.create({ name: 'other', domain: 'x.test', values: {} })).rejects.toMatchObject({ status: 409 });
    await t.client.credentials.delete('other');
    await expect(t.client.credentials.retrieve('other')).rejects.toMatchObject({ status: 404 });
  });

  it('stores values and TOTP secrets only as ciphertext, with the key outside the database', async () => {
    await t.client.credentials.create({ name: 'cipher-check', domain: 'c.test', values: { password: 'plain-text-marker-123' }, totp_secret: secret });
    if (!process.env.BROWSERDECK_TEST_DATABASE_URL) {
      const db = new Database(path.join(t.dataDir, 'browserdeck.sqlite'), { readonly: true });
      const row = db.prepare('select * from credentials where name = ?').get('cipher-check') as Record<string, string>;
      db.close();
      expect(JSON.stringify(row)).not.toContain('plain-text-marker-123');
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(row.values_enc).toMatch(/^v1\./);
    }
    const keyFile = await fs.stat(path.join(t.dataDir, 'secret.key'));
    expect(keyFile.mode & 0o777).toBe(0o600);
  });

  it('returns the current TOTP code right after setting a secret and at /totp-code', async () => {
    const c = await t.client.credentials.create({
      name: 'with-totp',
      domain: 't.test',
      values: { username: 'u' },
      totp_secret: secret.toLowerCase().replace(/(.{4})/g, '$1 '),
    });
    expect(c.has_totp_secret).toBe(true);
    expect(c.totp_code).toMatch(/^\d{6}$/);
    const expires = new Date(c.totp_code_expires_at!);
    expect(expires.getTime() % 30_000).toBe(0);
    const code = await t.client.credentials.totpCode('with-totp');
    // The server's code is what RFC 6238 gives for the step the server said it belongs to.
    const step = new Date(new Date(code.expires_at).getTime() - 1);
    expect(code.code).toBe(totpFromSecret(secret, step).code);
    expect((await t.client.credentials.retrieve(c.id)).totp_code).toBeUndefined();

    const removed = await t.client.credentials.update(c.id, { totp_secret: '' });
    expect(removed.has_totp_secret).toBe(false);
    await expect(t.client.credentials.totpCode(c.id)).rejects.toMatchObject({ status: 422 });
    await expect(t.client.credentials.update(c.id, { totp_secret: 'not base32 !!' })).rejects.toMatchObject({ status: 400 });
  });

  it('validates input with 400s and keeps projects apart', async () => {
    const bad = await t.api('/credentials', { method: 'POST', json: { name: 'x', domain: 'd.test', values: { a: 5 } } });
    expect(bad.status).toBe(400);
    const missing = await t.api('/credentials', { method: 'POST', json: { name: 'x' } });
    expect(missing.status).toBe(400);
    const p2 = await t.client.projects.create({ name: 'cred-other-project' });
    const other = t.clientWith({ projectID: p2.id });
    await expect(other.credentials.retrieve('acme-login')).rejects.toMatchObject({ status: 404 });
    expect((await other.credentials.list()).items).toEqual([]);
    // A project holding credentials is not empty.
    await other.credentials.create({ name: 'p2-cred', domain: 'p2.test', values: { k: 'v' } });
    await expect(t.client.projects.delete(p2.id)).rejects.toMatchObject({ status: 409 });
    await other.credentials.delete('p2-cred');
    await t.client.projects.delete(p2.id);
  });
});
