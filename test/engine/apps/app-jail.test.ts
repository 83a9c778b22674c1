/**
 * An app runs in the app jail: its action cannot read the engine's data dir (admin key, secret
 * key, database), another deployment, /root or shadow files, nor write its own code; it still
 * reaches the engine API and creates and drives a browser with the SDK. On the engine before
 * the jail the same action read the admin key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { deploy } from './app-helpers.js';

const PROBE = `
import fs from 'node:fs';
import Kernel from '@onkernel/sdk';
const kernel = new Kernel();
const app = kernel.app('probe');
const tryRead = (p) => { try { return fs.readFileSync(p, 'utf8').slice(0, 200); } catch (e) { return 'ERR ' + e.code; } };
const tryList = (p) => { try { return fs.readdirSync(p).join(','); } catch (e) { return 'ERR ' + e.code; } };
app.action('probe', async (_ctx, payload) => {
  const seen = {};
  for (const p of payload.read) seen[p] = tryRead(p);
  for (const p of payload.list) seen['ls ' + p] = tryList(p);
  try { fs.writeFileSync(new URL('./index.mjs', import.meta.url), 'overwritten'); seen.writeOwnCode = 'written'; } catch (e) { seen.writeOwnCode = 'ERR ' + e.code; }
  try { fs.writeFileSync('/tmp/scratch.txt', 'ok'); seen.writeTmp = fs.readFileSync('/tmp/scratch.txt', 'utf8'); } catch (e) { seen.writeTmp = 'ERR ' + e.code; }
  const session = await kernel.browsers.create({ headless: true });
  seen.browser = session.session_id ? 'created' : 'none';
  await kernel.browsers.deleteByID(session.session_id);
  return seen;
});
`;

describe('the app jail', () => {
  let te: TestEngine;
  let otherDir: string;
  beforeAll(async () => {
    te = await startTestEngine();
    const other = await deploy(
      te.client,
      { 'index.mjs': "import Kernel from '@onkernel/sdk'; new Kernel().app('other').action('x', (_ctx) => 'secret-of-other');" },
      { entrypoint: 'index.mjs', version: 'o1' },
    );
    expect(other.final.status, other.final.status_reason).toBe('running');
    otherDir = path.join(te.dataDir, 'deployments', other.final.id);
    expect(fs.existsSync(otherDir), otherDir).toBe(true);
  });
  afterAll(async () => {
    await te?.stop();
  });

  it('reads nothing of the engine or other deployments, writes only its tmp, and still drives a browser', async () => {
    const { final } = await deploy(te.client, { 'index.mjs': PROBE }, { entrypoint: 'index.mjs', version: 'p1' });
    expect(final.status, final.status_reason).toBe('running');
    const secrets = ['admin-api-key', 'secret.key', 'browserdeck.sqlite'].map((f) => path.join(te.dataDir, f)).filter((f) => fs.existsSync(f));
    expect(secrets.length).toBeGreaterThan(1);
    const read = [...secrets, path.join(otherDir, 'index.mjs'), '/etc/shadow', '/root/.bashrc'];
    const inv = await te.client.invocations.create({
      app_name: 'probe',
      action_name: 'probe',
      version: 'p1',
      payload: JSON.stringify({ read, list: [te.dataDir, path.join(te.dataDir, 'deployments'), '/root'] }),
    });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    const seen = JSON.parse(inv.output!) as Record<string, string>;
    const adminKey = fs.readFileSync(path.join(te.dataDir, 'admin-api-key'), 'utf8').trim();
    for (const p of read) expect(seen[p], p).toMatch(/^(ERR |$)/);
    expect(JSON.stringify(seen)).not.toContain(adminKey);
    expect(JSON.stringify(seen)).not.toContain('secret-of-other');
    expect(seen[`ls ${path.join(te.dataDir, 'deployments')}`]).not.toContain(path.basename(otherDir));
    expect(seen.writeOwnCode).toMatch(/^ERR /);
    expect(seen.writeTmp).toBe('ok');
    expect(seen.browser).toBe('created');
  });
});
