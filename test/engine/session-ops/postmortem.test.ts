/**
 * Issue 28, post-mortem: a session that logged a console error, made a failing request and ran
 * processes is deleted; its telemetry (`events`, `stream?replay=all`, which then ends), process
 * list (with exits, 137 named SIGKILL), supervisor logs and HAR still answer from its post-mortem
 * once the engine has let go of its in-memory buffer; another project's key gets 404; the
 * retention removes it. `ended_reason`/`ended_by` for a delete, the inactivity timeout and the
 * engine's stop. An invocation's detail keeps its browsers' ids.
 *
 * @database ended_reason/ended_by are columns of migration 0018, the invocation's browsers a query
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { waitFor } from '../../helpers/chromium-web.js';
import { collect, type Envelope } from './telemetry-helpers.js';
import type { PostmortemStore } from '../../../src/engine/runtime/postmortem/postmortem-store.js';
import type { ProcessInfo } from '../../../src/shared/wire/session-processes.js';

/** A second of `timeout_seconds` lasts this long here: the shortest timeout (10 s) ends an idle session after 5 s. */
const SECOND_MS = 500;
const PAGE = `<!doctype html><html><body><script>
  console.error('checkout failed badly');
  fetch('/missing.json').catch(() => {});
</script></body></html>`;

let te: TestEngine;
let site: LocalServer;
let offsetMs = 0;
let timedOut: string;
/** Event reads go back to the file's start (the clock jumps ahead below). */
const since = new Date(Date.now() - 60_000).toISOString();

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/missing.json') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"nope"}');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  te = await startTestEngine({ sessionSecondMs: SECOND_MS, clock: { now: () => new Date(Date.now() + offsetMs) } });
  // Left alone from the start: it times out while the first case runs.
  timedOut = (await te.client.browsers.create({ headless: true, timeout_seconds: 10 })).session_id;
}, 120_000);

afterAll(async () => {
  await te?.stop();
  await site?.close();
});

const events = async (id: string, key = te.adminKey) => {
  const r = await te.api(`/browsers/${id}/telemetry/events?limit=1000&since=${encodeURIComponent(since)}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: r.status, body: r.status === 200 ? ((await r.json()) as Envelope[]) : [] };
};
const processes = async (id: string, key = te.adminKey) => {
  const r = await te.api(`/browsers/${id}/processes`, { headers: { authorization: `Bearer ${key}` } });
  return { status: r.status, body: r.status === 200 ? ((await r.json()) as ProcessInfo[]) : [] };
};
const isConsoleError = (e: Envelope) => e.event.type === 'console_error' && String(e.event.data?.text).includes('checkout failed badly');
const is404 = (e: Envelope) => e.event.type === 'network_response' && e.event.data?.status === 404;

describe('an ended session keeps its story', () => {
  let id: string;

  it('answers telemetry, processes, logs and HAR of a deleted session from its post-mortem', async () => {
    const s = await te.client.browsers.create({
      headless: true,
      timeout_seconds: 300,
      start_url: site.url + '/',
      telemetry: { browser: { console: { enabled: true }, network: { enabled: true } } },
    });
    id = s.session_id;
    const spawned = await te.client.browsers.process.spawn(id, { command: 'sh', args: ['-c', 'sleep 60'] });
    const exec = await te.client.browsers.process.exec(id, { command: 'sh', args: ['-c', 'exit 3'] });
    expect(exec.exit_code).toBe(3);
    await waitFor(async () => (await events(id)).body.some(isConsoleError) && (await events(id)).body.some(is404), 30_000, 'console error and 404 recorded');
    const live = (await processes(id)).body;
    expect(live.map((p) => [p.origin, p.command, p.state, p.exit_code])).toEqual([
      ['spawn', 'sh', 'running', null],
      ['exec', 'sh', 'exited', 3],
    ]);
    expect(live[0].process_id).toBe(spawned.process_id);

    await te.client.browsers.deleteByID(id);
    // A read of an ended session waits for its teardown, which writes the post-mortem.
    expect((await events(id)).body.some(isConsoleError)).toBe(true);
    // The engine lets go of its in-memory buffer (10 minutes later): from here on the post-mortem answers.
    offsetMs += 11 * 60_000;
    te.engine.services.telemetry.sweep();
    expect(te.engine.services.telemetry.get(id)).toBeUndefined();

    const got = await events(id);
    expect(got.status).toBe(200);
    expect(got.body.some(isConsoleError)).toBe(true);
    expect(got.body.some(is404)).toBe(true);

    // The stream delivers the history, then ends.
    const stream = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all' } as never));
    await stream.ended;
    expect(stream.events.some(isConsoleError)).toBe(true);
    expect(stream.events.map((e) => e.seq)).toEqual(got.body.map((e) => e.seq));

    const ended = (await processes(id)).body;
    expect(ended.map((p) => [p.origin, p.state, p.exit_code, p.exit_signal])).toEqual([
      ['spawn', 'exited', 137, 'SIGKILL'],
      ['exec', 'exited', 3, undefined],
    ]);

    const logs = await te.api(`/browsers/${id}/logs/stream?source=supervisor&supervisor_process=session`);
    expect(logs.status).toBe(200);
    expect(await logs.text()).toMatch(/browser started/);

    const har = (await (await te.api(`/browsers/${id}/har`)).json()) as { log: { entries: { request: { url: string }; response: { status: number } }[] } };
    expect(har.log.entries.find((e) => e.request.url.endsWith('/missing.json'))?.response.status).toBe(404);

    const row = await te.client.browsers.retrieve(id, { include_deleted: true } as never);
    const adminKeyId = (await te.client.apiKeys.list({ name: 'admin' })).items[0].id;
    expect(row).toMatchObject({ ended_reason: 'deleted', ended_by: `api_key:${adminKeyId}` });
  }, 120_000);

  it('keeps it from another project (404)', async () => {
    const project = await te.client.projects.create({ name: 'elsewhere' });
    const { key } = await te.client.apiKeys.create({ name: 'elsewhere', project_id: project.id });
    expect((await events(id, key)).status).toBe(404);
    expect((await processes(id, key)).status).toBe(404);
    const stream = await te.api(`/browsers/${id}/telemetry/stream?replay=all`, { headers: { authorization: `Bearer ${key}` } });
    expect(stream.status).toBe(404);
  });

  it('removes it at the retention', async () => {
    const postmortem = te.engine.services.postmortem as PostmortemStore;
    offsetMs += 8 * 24 * 3600_000;
    expect(await postmortem.sweep()).toBeGreaterThanOrEqual(1);
    expect((await events(id)).body).toEqual([]);
    expect((await processes(id)).body).toEqual([]);
  });

  it('says the inactivity timeout ended a session', async () => {
    // Watched in the database: a retrieve through the API is activity on the session and would keep it alive.
    const endedAt = async () =>
      (await te.engine.context.db.selectFrom('browser_sessions').select('deleted_at').where('id', '=', timedOut).executeTakeFirstOrThrow()).deleted_at;
    await waitFor(async () => (await endedAt()) !== null, 60_000, 'timed out');
    const row = await te.client.browsers.retrieve(timedOut, { include_deleted: true } as never);
    expect(row).toMatchObject({ ended_reason: 'timeout' });
    expect(row).not.toHaveProperty('ended_by');
  });

  it('says the engine stop ended a session', async () => {
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
    await te.engine.services.sessions.stopAll();
    const row = await te.client.browsers.retrieve(s.session_id, { include_deleted: true } as never);
    expect(row).toMatchObject({ ended_reason: 'engine_stopped' });
  });
});
