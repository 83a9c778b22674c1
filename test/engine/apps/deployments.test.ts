/**
 * Deployments through the official client: redeploying an app version (refused without
 * force, replaced with it, a new version runs its own code), broken apps failing with their
 * error in status_reason, an ESM JavaScript app whose package.json gets `npm install` (a
 * file: dependency, offline) with npm's output in the events, a deployment from a local
 * directory (org-wide keys only), deletion, and bad input (zip-slip entries included).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { toFile } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { deploy, logLines, sampleFiles, zipOf, SAMPLE_APP_DIR } from './app-helpers.js';

let te: TestEngine;

beforeAll(async () => {
  te = await startTestEngine();
});

afterAll(async () => {
  await te?.stop();
});

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status,
  );

describe('deployments', () => {
  it('redeploys: same version needs force, a new version runs its own code', async () => {
    const v1 = await deploy(te.client, sampleFiles(), { version: 'r1', env: { SAMPLE_LABEL: 'one' } });
    expect(v1.final.status, v1.final.status_reason).toBe('running');
    const again = await deploy(te.client, sampleFiles(), { version: 'r1', env: { SAMPLE_LABEL: 'two' } });
    expect(again.final.status).toBe('failed');
    expect(again.final.status_reason).toContain("version 'r1' is already deployed");
    expect(again.events.find((e) => e.event === 'error')).toMatchObject({ error: { code: 'app_version_exists' } });
    const forced = await deploy(te.client, sampleFiles(), { version: 'r1', force: true, env: { SAMPLE_LABEL: 'forced' } });
    expect(forced.final.status, forced.final.status_reason).toBe('running');
    expect((await te.client.deployments.retrieve(v1.created.id)).status).toBe('stopped');
    const apps = (await te.client.apps.list({ app_name: 'sample-app', version: 'r1' })).items;
    expect(apps.map((a) => a.deployment)).toEqual([forced.created.id]);
    const r1 = await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo', version: 'r1' });
    expect(JSON.parse(r1.output!).label).toBe('forced');

    const v2 = await deploy(
      te.client,
      sampleFiles({ 'index.ts': sampleFiles()['index.ts'].replace("app.action('echo'", "app.action('echo2', async (_ctx) => 'v2-only');\napp.action('echo'") }),
      { version: 'r2', env: { SAMPLE_LABEL: 'two' } },
    );
    expect(v2.final.status, v2.final.status_reason).toBe('running');
    const r2 = await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo', version: 'r2' });
    expect(JSON.parse(r2.output!).label).toBe('two');
    expect((await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo2', version: 'r2' })).output).toBe('"v2-only"');
    expect(await status(te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo2', version: 'r1' }))).toBe(404);
  });

  it('a broken app fails the deployment with its error', async () => {
    const syntax = await deploy(te.client, { 'index.ts': 'const x = ;\n' });
    expect(syntax.final.status).toBe('failed');
    expect(syntax.final.status_reason).toMatch(/loading index\.ts failed: [\s\S]*Unexpected/);
    const throws = await deploy(te.client, { 'index.ts': "throw new Error('config missing: API_URL');\n" });
    expect(throws.final.status).toBe('failed');
    expect(throws.final.status_reason).toContain('config missing: API_URL');
    const noApps = await deploy(te.client, { 'index.js': "console.log('nothing here');\n" }, { entrypoint: 'index.js' });
    expect(noApps.final.status).toBe('failed');
    expect(noApps.final.status_reason).toContain('registered no apps');
    expect(logLines(noApps.events)).toContain('nothing here');
  });

  it('installs dependencies of an app with only a package.json (ESM JavaScript)', async () => {
    const files = {
      'package.json': JSON.stringify({ name: 'esm-app', type: 'module', private: true, dependencies: { greeter: 'file:./vendor/greeter' } }),
      'vendor/greeter/package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', main: 'index.js' }),
      'vendor/greeter/index.js': 'export const greet = (n) => `hello ${n}`;\n',
      'main.js':
        "import Kernel from '@onkernel/sdk';\nimport { greet } from 'greeter';\nconst k = new Kernel();\nk.app('esm-app').action('greet', async (ctx, p) => greet(p.name));\n",
    };
    const d = await deploy(te.client, files, { entrypoint: 'main.js', version: '1' });
    expect(d.final.status, d.final.status_reason).toBe('running');
    const lines = logLines(d.events);
    expect(lines).toContain('$ npm install --no-audit --no-fund --no-update-notifier');
    expect(lines.some((l) => /added \d+ package/.test(l))).toBe(true);
    const inv = await te.client.invocations.create({ app_name: 'esm-app', action_name: 'greet', version: '1', payload: '{"name":"kernel"}' });
    expect(inv.output).toBe('"hello kernel"');
  });

  it('deploys a directory of the engine machine for org-wide keys only', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-local-app-'));
    // A root engine's apps run as unprivileged users (jail-user.ts): the operator's directory must be readable by others.
    await fs.chmod(dir, 0o755);
    try {
      await fs.copyFile(path.join(SAMPLE_APP_DIR, 'index.ts'), path.join(dir, 'index.ts'));
      const res = await te.api('/deployments/local', { method: 'POST', json: { source_path: dir, entrypoint_rel_path: 'index.ts', version: 'local' } });
      expect(res.status).toBe(200);
      const dep = (await res.json()) as { id: string; source_path: string };
      expect(dep.source_path).toBe(dir);
      for await (const _ of await te.client.deployments.follow(dep.id));
      expect((await te.client.deployments.retrieve(dep.id)).status).toBe('running');
      expect((await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo', version: 'local' })).status).toBe('succeeded');

      const project = (await te.client.projects.list()).items.find((p) => p.name === 'default')!;
      const scoped = await te.client.apiKeys.create({ name: 'scoped', project_id: project.id });
      const denied = await fetch(`${te.url}/deployments/local`, {
        method: 'POST',
        headers: { authorization: `Bearer ${scoped.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_path: dir }),
      });
      expect(denied.status).toBe(403);
      expect((await te.api('/deployments/local', { method: 'POST', json: { source_path: 'relative/dir' } })).status).toBe(400);
      expect((await te.api('/deployments/local', { method: 'POST', json: { source_path: path.join(dir, 'missing') } })).status).toBe(400);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('deletes a deployment with its app versions and directory', async () => {
    const d = await deploy(te.client, sampleFiles({ 'index.ts': sampleFiles()['index.ts'].replace("kernel.app('sample-app')", "kernel.app('doomed-app')") }), {
      version: 'x',
    });
    expect(d.final.status, d.final.status_reason).toBe('running');
    const dir = path.join(te.dataDir, 'deployments', d.created.id);
    await expect(fs.stat(dir)).resolves.toBeTruthy();
    await te.client.deployments.delete(d.created.id);
    expect(await status(te.client.deployments.retrieve(d.created.id))).toBe(404);
    expect((await te.client.apps.list({ app_name: 'doomed-app' })).items).toEqual([]);
    await expect(fs.stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await status(te.client.deployments.delete(d.created.id))).toBe(404);
  });

  it('refuses bad input', async () => {
    const file = async (files: Record<string, string>) => toFile(await zipOf(files), 'app.zip');
    expect(await status(te.client.deployments.create({ entrypoint_rel_path: 'index.ts' }))).toBe(400);
    expect(await status(te.client.deployments.create({ file: await toFile(Buffer.from('not a zip'), 'a.zip'), entrypoint_rel_path: 'index.ts' }))).toBe(400);
    expect(await status(te.client.deployments.create({ file: await file({ 'index.ts': '' }), entrypoint_rel_path: 'missing.ts' }))).toBe(400);
    expect(await status(te.client.deployments.create({ file: await file({ 'index.ts': '' }), entrypoint_rel_path: '../../etc/passwd' }))).toBe(400);
    expect(await status(te.client.deployments.create({ file: await file({ 'index.ts': '' }), env_vars: { 'BAD NAME': 'x' } }))).toBe(400);
    expect(
      await status(
        te.client.deployments.create({
          file: await file({ 'index.ts': '' }),
          source: { type: 'github', url: 'https://github.com/a/b', ref: 'main', entrypoint: 'index.ts' },
        }),
      ),
    ).toBe(422);
    expect(await status(te.client.deployments.create({ file: await file({ 'index.ts': '' }), region: 'eu-west' as 'aws.us-east-1a' }))).toBe(400);
    // A zip-slip entry (yazl refuses to write one, so patch the name bytes of a same-length entry).
    const slip = (await zipOf({ 'abcdefgh/evil.txt': 'x' })).toString('latin1').replaceAll('abcdefgh/evil.txt', '../../../evil.txt');
    expect(await status(te.client.deployments.create({ file: await toFile(Buffer.from(slip, 'latin1'), 'slip.zip'), entrypoint_rel_path: 'evil.txt' }))).toBe(
      400,
    );
    await expect(fs.stat(path.join(te.dataDir, '..', 'evil.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await status(te.client.deployments.list({ app_version: '1' }))).toBe(400);
    expect(await status(te.client.deployments.follow('nope'))).toBe(404);
    const left = await fs.readdir(path.join(te.dataDir, 'deployments', '.uploads'));
    expect(left).toEqual([]);
  });
});
