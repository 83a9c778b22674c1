/**
 * Invocations that do not simply succeed, through the official client: an action that
 * throws, one that outlives its timeout (its whole process tree ends), one that holds a
 * browser until the test deletes the invocation's browsers (its detail keeps their ids), a cancel by PATCH, the project's
 * max_concurrent_invocations, the invocation key dying with its invocation, browsers joining
 * invocations, and bad input.
 *
 * Against PostgreSQL (the suite's second pass) the timed-out action is left out: its timer and
 * its process tree are the engine's and the jail's, and it fails with the same row update as the
 * throwing action, which runs there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { appJails, deploy, hostPidsOfApp, logLines, readAll, sampleFiles, processGone as gone, type StreamedEvent } from './app-helpers.js';
import { jailStatus } from '../../../src/engine/runtime/sandbox/jail-status.js';

const appJailed = !!(await jailStatus({ insecureNoJail: false })).bwrap;

const ON_POSTGRES = !!process.env.BROWSERDECK_TEST_DATABASE_URL;

let te: TestEngine;
const app = { app_name: 'sample-app', version: 'v1' };

const states = (events: StreamedEvent[]) => events.filter((e) => e.event === 'invocation_state').map((e) => (e.invocation as { status: string }).status);

beforeAll(async () => {
  te = await startTestEngine();
  const { final } = await deploy(te.client, sampleFiles(), { version: 'v1' });
  expect(final.status, final.status_reason).toBe('running');
});

afterAll(async () => {
  await te?.stop();
});

describe('invocation lifecycle', () => {
  it('a throwing action fails with its message; stderr is in the log', async () => {
    const inv = await te.client.invocations.create({ ...app, action_name: 'fail' });
    expect(inv.status).toBe('failed');
    expect(inv.status_reason).toContain('sample failure: the button was not found');
    const events = await readAll(await te.client.invocations.follow(inv.id));
    expect(logLines(events)).toContain('about to fail');
    // The stack on stderr names the app's own file relative to the app, and nothing of the
    // server's layout (data dir, engine sources, Node internals).
    const log = logLines(events).join('\n');
    expect(log).toMatch(/Error: sample failure: the button was not found\n\s+at .*\.\/index\.ts:\d+/);
    expect(log).not.toContain(te.dataDir);
    expect(log).not.toContain(process.cwd());
    expect(log).not.toMatch(/node:internal|app-runner-child/);
    expect(events.find((e) => e.event === 'error')).toMatchObject({ error: { code: 'action_failed' } });
    expect(states(events)).toEqual(['queued', 'running', 'failed']);
  });

  it.skipIf(ON_POSTGRES)('a timed-out action fails and its process tree is gone', async () => {
    const inv = await te.client.invocations.create({ ...app, action_name: 'sleep', async: true, async_timeout_seconds: 10 });
    const events = await readAll(await te.client.invocations.follow(inv.id));
    const pids = logLines(events)
      .find((l) => l.startsWith('pids '))!
      .split(' ')
      .slice(1)
      .map(Number);
    expect(pids).toHaveLength(2);
    expect(states(events).at(-1)).toBe('failed');
    const final = await te.client.invocations.retrieve(inv.id);
    expect(final.status_reason).toContain('timed out after 10 s');
    // Jailed, the logged pids are the app's own pid namespace's: its jail (and with it the
    // namespace and every process in it) must be gone; unjailed, the pids themselves.
    await expect.poll(() => appJails(te.dataDir).length === 0 && (appJailed || pids.every(gone)), { timeout: 15_000 }).toBe(true);
  });

  it('lists and deletes the browsers of a running invocation', async () => {
    const inv = await te.client.invocations.create({ ...app, action_name: 'hold-browser', async: true });
    const stream = await te.client.invocations.follow(inv.id);
    const seen: StreamedEvent[] = [];
    let sessionId = '';
    for await (const e of stream) {
      seen.push(e as unknown as StreamedEvent);
      const m = /^holding browser (\S+)$/.exec(String((e as unknown as StreamedEvent).message ?? ''));
      if (m) {
        sessionId = m[1];
        const { browsers } = await te.client.invocations.listBrowsers(inv.id);
        expect(browsers.map((b) => b.session_id)).toEqual([sessionId]);
        expect(browsers[0].cdp_ws_url).toContain(sessionId);
        await te.client.invocations.deleteBrowsers(inv.id);
        expect((await te.client.invocations.listBrowsers(inv.id)).browsers).toEqual([]);
      }
    }
    expect(sessionId).not.toBe('');
    expect(logLines(seen)).toContain('browser released');
    const final = await te.client.invocations.retrieve(inv.id);
    expect(final.status).toBe('succeeded');
    expect(JSON.parse(final.output!)).toEqual({ released: sessionId });
    // Its detail keeps the ids of the browsers it used (ended ones too), and the browser says who ended it.
    expect((final as { browser_session_ids?: string[] }).browser_session_ids).toEqual([sessionId]);
    const adminKeyId = (await te.client.apiKeys.list({ name: 'admin' })).items[0].id;
    expect(await te.client.browsers.retrieve(sessionId, { include_deleted: true } as never)).toMatchObject({
      ended_reason: 'deleted',
      ended_by: `api_key:${adminKeyId}`,
    });
  });

  it('the invocation key works only while the invocation runs', async () => {
    const inv = await te.client.invocations.create({ ...app, action_name: 'leak-key' });
    const { key } = JSON.parse(inv.output!) as { key: string };
    expect(key).toMatch(/^bdi_/);
    await expect(te.clientWith({ apiKey: key }).browsers.list()).rejects.toMatchObject({ status: 401 });
  });

  it('PATCH settles a running invocation and ends its process; terminal ones are 409', async () => {
    const inv = await te.client.invocations.create({ ...app, action_name: 'sleep', async: true, async_timeout_seconds: 600 });
    const stream = await te.client.invocations.follow(inv.id);
    let pids: number[] = [];
    const events: StreamedEvent[] = [];
    for await (const e of stream) {
      events.push(e as unknown as StreamedEvent);
      const msg = String((e as unknown as StreamedEvent).message ?? '');
      if (msg.startsWith('pids ')) {
        pids = hostPidsOfApp(msg.split(' ').slice(1).map(Number), te.dataDir);
        expect(pids).toHaveLength(2);
        const patched = await te.client.invocations.update(inv.id, { status: 'succeeded', output: '{"done":true}' });
        expect(patched).toMatchObject({ status: 'succeeded', output: '{"done":true}' });
      }
    }
    expect(states(events).at(-1)).toBe('succeeded');
    await expect.poll(() => pids.every(gone), { timeout: 15_000 }).toBe(true);
    await expect(te.client.invocations.update(inv.id, { status: 'failed' })).rejects.toMatchObject({ status: 409 });
  });

  it('enforces max_concurrent_invocations with 429 and Retry-After', async () => {
    const project = (await te.client.projects.list()).items.find((p) => p.name === 'default')!;
    await te.client.projects.limits.update(project.id, { max_concurrent_invocations: 1 });
    try {
      const first = await te.client.invocations.create({ ...app, action_name: 'sleep', async: true, async_timeout_seconds: 600 });
      const res = await te.api('/invocations', { method: 'POST', json: { ...app, action_name: 'echo' } });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeTruthy();
      await te.client.invocations.update(first.id, { status: 'failed' });
      const ok = await te.client.invocations.create({ ...app, action_name: 'echo' });
      expect(ok.status).toBe('succeeded');
    } finally {
      await te.client.projects.limits.update(project.id, { max_concurrent_invocations: null });
    }
  });

  it('browsers join only running invocations of the project', async () => {
    await expect(te.client.browsers.create({ headless: true, invocation_id: 'nope' })).rejects.toMatchObject({ status: 404 });
    const done = await te.client.invocations.create({ ...app, action_name: 'echo' });
    await expect(te.client.browsers.create({ headless: true, invocation_id: done.id })).rejects.toMatchObject({ status: 409 });
    await expect(te.client.invocations.listBrowsers('nope')).rejects.toMatchObject({ status: 404 });
    await expect(te.client.invocations.deleteBrowsers('nope')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses bad input', async () => {
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (e: { status?: number }) => e.status,
      );
    expect(await status(te.client.invocations.create({ app_name: 'nope', action_name: 'echo', version: 'v1' }))).toBe(404);
    expect(await status(te.client.invocations.create({ ...app, action_name: 'nope' }))).toBe(404);
    expect(await status(te.client.invocations.create({ ...app, version: 'v9', action_name: 'echo' }))).toBe(404);
    expect(await status(te.client.invocations.create({ ...app, action_name: 'echo', payload: '{not json' }))).toBe(400);
    expect(await status(te.client.invocations.create({ ...app, action_name: 'echo', async: true, async_timeout_seconds: 5 }))).toBe(400);
    expect(await status(te.client.invocations.create({ ...app, action_name: 'echo', async: true, async_timeout_seconds: 3601 }))).toBe(400);
    expect(await status(te.client.invocations.retrieve('nope'))).toBe(404);
    expect(await status(te.client.invocations.follow('nope'))).toBe(404);
    expect(await status(te.client.invocations.update('nope', { status: 'failed' }))).toBe(404);
    // An unknown invocation is a 404 before its body is validated (http/resource-lookup-first.ts).
    expect((await te.api('/invocations/x', { method: 'PATCH', json: { status: 'running' } })).status).toBe(404);
    const own = await te.client.invocations.create({ ...app, action_name: 'echo', async: true });
    const r = await te.api(`/invocations/${own.id}`, { method: 'PATCH', json: { status: 'running' } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBeTruthy();
    const missing = await te.api('/invocations', { method: 'POST', json: { action_name: 'echo' } });
    expect(missing.status).toBe(400);
  });
});
