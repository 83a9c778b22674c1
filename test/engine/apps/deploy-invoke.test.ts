/**
 * The sample app end to end through the official client: deploy a zip (TypeScript, no
 * node_modules), follow the deployment's events to `running`, see its actions in
 * `apps.list`, invoke an action that opens a real browser through the API with its
 * invocation key and returns the title of a page the test serves, sync and async, and follow
 * the invocation's events to their end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestWebServer, type TestWebServer } from '../../helpers/chromium-web.js';
import { deploy, logLines, readAll, sampleFiles } from './app-helpers.js';

let te: TestEngine;
let web: TestWebServer;
let deploymentId: string;

beforeAll(async () => {
  web = await startTestWebServer();
  te = await startTestEngine();
});

afterAll(async () => {
  await te?.stop();
  await web?.close();
});

describe('deploy and invoke the sample app', () => {
  it('deploys: events end at running, with the app version summary', async () => {
    const { created, events, final } = await deploy(te.client, sampleFiles(), { version: '1.0.0', env: { SAMPLE_LABEL: 'first', SECRET_TOKEN: 's3cr3t' } });
    deploymentId = created.id;
    expect(created.status).toBe('queued');
    expect(final.status, final.status_reason).toBe('running');
    expect(final.env_vars).toEqual({ SAMPLE_LABEL: '', SECRET_TOKEN: '' });
    expect(final.source_checksum).toMatch(/^[0-9a-f]{64}$/);
    const states = events.filter((e) => e.event === 'deployment_state').map((e) => (e.deployment as { status: string }).status);
    expect(states).toEqual(['queued', 'in_progress', 'running']);
    const summary = events.find((e) => e.event === 'app_version_summary');
    expect(summary).toMatchObject({ app_name: 'sample-app', version: '1.0.0', region: 'aws.us-east-1a' });
    expect((summary!.actions as Array<{ name: string }>).map((a) => a.name).sort()).toEqual([
      'echo',
      'fail',
      'hold-browser',
      'leak-key',
      'page-title',
      'sleep',
    ]);
    expect(JSON.stringify(events)).not.toContain('s3cr3t');
  });

  it('lists the app version and the deployment', async () => {
    const apps = await te.client.apps.list({ app_name: 'sample-app' });
    expect(apps.items).toHaveLength(1);
    expect(apps.items[0]).toMatchObject({
      app_name: 'sample-app',
      version: '1.0.0',
      deployment: deploymentId,
      region: 'aws.us-east-1a',
      env_vars: { SAMPLE_LABEL: '', SECRET_TOKEN: '' },
    });
    expect((await te.client.apps.list({ app_name: 'other' })).items).toHaveLength(0);
    expect((await te.client.apps.list({ query: 'SAMPLE' })).items).toHaveLength(1);
    const deps = await te.client.deployments.list({ app_name: 'sample-app', app_version: '1.0.0' });
    expect(deps.items.map((d) => d.id)).toEqual([deploymentId]);
    expect((await te.client.deployments.list({ app_name: 'sample-app', app_version: '9' })).items).toHaveLength(0);
  });

  it('invokes synchronously: a real browser opened with the invocation key visits the page', async () => {
    const inv = await te.client.invocations.create({
      app_name: 'sample-app',
      action_name: 'page-title',
      version: '1.0.0',
      payload: JSON.stringify({ url: `${web.url}/title/Sample%20Title` }),
    });
    expect(inv.status, inv.status_reason).toBe('succeeded');
    const output = JSON.parse(inv.output!) as { title: string; session_id: string; invocation_id: string; label: string };
    expect(output).toMatchObject({ title: 'Sample Title', invocation_id: inv.id, label: 'first' });
    expect(web.hits.get('/title/Sample%20Title')).toBe(1);
    // The browser belonged to the invocation and ended with it.
    const session = await te.client.browsers.retrieve(output.session_id, { include_deleted: true });
    expect(session.deleted_at).toBeTruthy();
    // Its end says why and who: the invocation finished (issue 28's end reasons).
    expect(session).toMatchObject({ ended_reason: 'invocation_ended', ended_by: `invocation:${inv.id}` });
    expect((await te.client.invocations.listBrowsers(inv.id)).browsers).toEqual([]);
    expect((await te.client.invocations.retrieve(inv.id)) as { browser_session_ids?: string[] }).toMatchObject({ browser_session_ids: [output.session_id] });
    const full = await te.client.invocations.retrieve(inv.id);
    expect(full).toMatchObject({ id: inv.id, app_name: 'sample-app', action_name: 'page-title', version: '1.0.0', status: 'succeeded' });
    expect(full.finished_at).toBeTruthy();
    // Already terminal: the stream replays the history and ends.
    const events = await readAll(await te.client.invocations.follow(inv.id));
    expect(logLines(events)).toEqual(expect.arrayContaining([`title: Sample Title`, `browser ${output.session_id} created`]));
    const states = events.filter((e) => e.event === 'invocation_state').map((e) => (e.invocation as { status: string }).status);
    expect(states).toEqual(['queued', 'running', 'succeeded']);
  });

  it('invokes asynchronously: 202 queued, then the stream follows it to the end', async () => {
    const raw = await te.api('/invocations', {
      method: 'POST',
      json: { app_name: 'sample-app', action_name: 'echo', version: '1.0.0', async: true, payload: '{"n":[1,2]}' },
    });
    expect(raw.status).toBe(202);
    const inv = (await raw.json()) as { id: string; status: string };
    expect(inv.status).toBe('queued');
    const events = await readAll(await te.client.invocations.follow(inv.id));
    const last = events.filter((e) => e.event === 'invocation_state').at(-1)!.invocation as { status: string; output: string };
    expect(last.status).toBe('succeeded');
    expect(JSON.parse(last.output)).toEqual({ payload: { n: [1, 2] }, label: 'first', key_set: true });
    const again = await te.client.invocations.retrieve(inv.id);
    expect(again.output).toBe(last.output);
    expect(again.payload).toBe('{"n":[1,2]}');
  });

  it('replays only what happened after `since`', async () => {
    const inv = await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo', version: '1.0.0' });
    const later = new Date(Date.parse((await te.client.invocations.retrieve(inv.id)).finished_at!) + 60_000).toISOString();
    expect(await readAll(await te.client.invocations.follow(inv.id, { since: later }))).toEqual([]);
    const all = await readAll(await te.client.invocations.follow(inv.id, { since: '1h' }));
    expect(all.filter((e) => e.event === 'invocation_state')).toHaveLength(3);
    await expect(te.client.invocations.follow(inv.id, { since: 'yesterday' })).rejects.toMatchObject({ status: 400 });
  });

  it('lists invocations with the filters of the API', async () => {
    const all = await te.client.invocations.list({ app_name: 'sample-app' });
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    const succeeded = await te.client.invocations.list({ status: 'succeeded', action_name: 'page-title' });
    expect(succeeded.items.map((i) => i.action_name)).toEqual(['page-title']);
    expect((await te.client.invocations.list({ deployment_id: deploymentId, limit: 1 })).items).toHaveLength(1);
    expect((await te.client.invocations.list({ since: '1h', version: '1.0.0' })).items.length).toBe(all.items.length);
    expect((await te.client.invocations.list({ version: 'nope' })).items).toHaveLength(0);
  });
});
