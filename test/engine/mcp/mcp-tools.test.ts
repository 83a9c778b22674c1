/**
 * Every MCP tool and resource that mcp-http.test.ts leaves out, each called once over Streamable
 * HTTP with a project-scoped key and its effect checked through the API: `setup_profile` makes
 * a profile and a session with a live view, and that one session carries all the session tools
 * (navigate, click/type by coordinates, a download listed and read back, console errors and
 * telemetry, exec in the jail, a replay started, stopped and listed, the live view URL the engine
 * serves) and the resources; deleting it saves the profile, which is then listed, read and
 * deleted. The app tools run on one deployment of a tiny app and one invocation of it.
 * One engine and one browser for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type Kernel from '@onkernel/sdk';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { deploy } from '../apps/app-helpers.js';

let t: TestEngine;
let site: LocalServer;
let projectA: string;
let scoped: Kernel;
let mcp: Client;
let sessionId = '';
let profileId = '';

const PROFILE = 'mcp-tools-profile';
// Each target fills the viewport, so a click anywhere in the page area hits it.
const FULL = 'position:fixed;left:0;top:0;width:100vw;height:100vh;margin:0;display:block';
const PAGES = {
  '/input': `<!doctype html><title>input</title><input id="i" style="${FULL};font-size:40px">`,
  '/download': `<!doctype html><title>download</title><a id="dl" href="/report.csv" download="report.csv" style="${FULL}">download</a>`,
  '/report.csv': (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' });
    res.end('a,b\n1,2\n');
  },
  '/boom': `<!doctype html><title>boom</title><script>console.error('mcp-boom ' + 6 * 7)</script>`,
  '/cookie': (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'mcp_saved=yes; Max-Age=86400; Path=/' });
    res.end('<!doctype html><title>cookie</title>set');
  },
};
// A tiny app: no browser, no imports beyond the SDK the runtime provides.
const TINY_APP = `import Kernel from '@onkernel/sdk';
const app = new Kernel().app('mcp-tiny');
app.action('echo', async (_ctx: unknown, payload?: unknown) => ({ echoed: payload }));
`;

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await mcp.callTool({ name, arguments: args })) as CallToolResult;
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const r = await call(name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r;
}

function text(r: CallToolResult): string {
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${first?.type}`);
  return first.text;
}

const json = <T = Record<string, unknown>>(r: CallToolResult): T => JSON.parse(text(r)) as T;

async function resource<T = unknown>(uri: string): Promise<T> {
  const r = await mcp.readResource({ uri });
  const c = r.contents[0];
  expect(c).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse(String((c as { text: string }).text)) as T;
}

/** Page code through the tested execute_playwright_code, to read what a coordinate tool did. */
async function pageValue(code: string): Promise<unknown> {
  return json<{ result: unknown }>(await ok('execute_playwright_code', { session_id: sessionId, code })).result;
}

/**
 * Loads `url` in the session's one tab over its raw CDP and waits for `title`. Raw CDP, not
 * Playwright (navigate), so that no automation library has touched the browser's download
 * settings before the download test; the same tab, so the computer tools' active page is it.
 */
async function loadInTab(url: string, title: string): Promise<void> {
  const { cdp_ws_url } = await scoped.browsers.retrieve(sessionId);
  const ws = new WebSocket(cdp_ws_url);
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  let next = 1;
  const send = <T>(method: string, params: object, sessionId?: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = next++;
      const onMessage = (d: WebSocket.RawData) => {
        const msg = JSON.parse(d.toString()) as { id?: number; result?: T; error?: unknown };
        if (msg.id !== id) return;
        ws.off('message', onMessage);
        if (msg.error) reject(new Error(JSON.stringify(msg.error)));
        else resolve(msg.result as T);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  try {
    const { targetInfos } = await send<{ targetInfos: Array<{ targetId: string; type: string }> }>('Target.getTargets', {});
    const pages = targetInfos.filter((i) => i.type === 'page');
    expect(pages).toHaveLength(1);
    const { targetId } = pages[0];
    const { sessionId: tab } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    await send('Page.navigate', { url }, tab);
    await pollUntil(
      `the tab titled ${title}`,
      async () => (await send<{ targetInfo: { title: string } }>('Target.getTargetInfo', { targetId })).targetInfo.title,
      (v) => v === title,
    );
  } finally {
    ws.close();
  }
}

beforeAll(async () => {
  t = await startTestEngine();
  site = await startLocalServer(PAGES);
  projectA = (await t.client.projects.create({ name: 'mcp-tools' })).id;
  const key = (await t.client.apiKeys.create({ name: 'mcp-tools-key', project_id: projectA })).key;
  scoped = t.clientWith({ apiKey: key });
  mcp = new Client({ name: 'mcp-tools-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await site?.close();
  await t?.stop();
});

describe('profile and session tools on one session', () => {
  it('setup_profile creates the profile and a session saving into it, with a live view; a second call refuses', async () => {
    const answer = text(await ok('setup_profile', { profile_name: PROFILE }));
    profileId = /Profile id: (\S+)/.exec(answer)?.[1] ?? '';
    sessionId = /Session id: (\S+)/.exec(answer)?.[1] ?? '';
    const s = await scoped.browsers.retrieve(sessionId);
    expect(s.profile).toMatchObject({ name: PROFILE });
    // The URL carries a token minted per read (its iat in seconds): compared up to the token.
    const liveView = `${t.url}/browsers/${sessionId}/live?jwt=`;
    expect(s.browser_live_view_url?.startsWith(liveView)).toBe(true);
    expect(answer).toContain(`Open the browser: ${liveView}`);
    expect((await scoped.profiles.retrieve(PROFILE)).id).toBe(profileId);
    expect(text(await ok('setup_profile', { profile_name: PROFILE }))).toContain('already exists');
  });

  it('get_live_view_url answers the session’s live view, which the engine serves', async () => {
    const { browser_live_view_url } = json<{ browser_live_view_url: string }>(await ok('get_live_view_url', { session_id: sessionId }));
    expect(browser_live_view_url.startsWith(`${t.url}/browsers/${sessionId}/live?jwt=`)).toBe(true);
    const res = await fetch(browser_live_view_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('a download the page makes shows in list_downloads and read_download returns its bytes', async () => {
    expect(text(await ok('list_downloads', { session_id: sessionId }))).toBe('No downloads');
    await loadInTab(`${site.url}/download`, 'download');
    await ok('click', { session_id: sessionId, x: 200, y: 200 });
    const listed = await pollUntil(
      'report.csv in list_downloads',
      async () => text(await ok('list_downloads', { session_id: sessionId })),
      (s) => s.includes('report.csv') && !s.includes('.crdownload'),
    );
    expect(JSON.parse(listed)).toEqual([expect.objectContaining({ name: 'report.csv', size_bytes: 8 })]);
    expect(text(await ok('read_download', { session_id: sessionId, path: 'report.csv' }))).toBe('a,b\n1,2\n');
  });

  it('navigate loads a page; type and click by coordinates reach it', async () => {
    expect(json(await ok('navigate', { session_id: sessionId, url: `${site.url}/input` }))).toEqual({ url: `${site.url}/input`, title: 'input' });
    expect(json(await ok('click', { session_id: sessionId, x: 200, y: 200 }))).toEqual({ clicked: { x: 200, y: 200 } });
    // Input reaches the page asynchronously.
    await pollUntil(
      'the input focused by the click',
      () => pageValue('return await page.evaluate(() => document.activeElement?.id ?? null);'),
      (id) => id === 'i',
      50,
    );
    await ok('type', { session_id: sessionId, text: 'typed by mcp' });
    await pollUntil(
      'the typed text in the input',
      () => pageValue(`return await page.evaluate(() => (document.getElementById('i') as HTMLInputElement).value);`),
      (v) => v === 'typed by mcp',
      50,
    );
  });

  it('get_console_errors turns console telemetry on and reports an error the page logs; get_telemetry filters it by type', async () => {
    const first = json<{ turned_on?: string[] }>(await ok('get_console_errors', { session_id: sessionId }));
    expect(first.turned_on).toEqual(expect.arrayContaining(['console']));
    await ok('navigate', { session_id: sessionId, url: `${site.url}/boom` });
    await pollUntil(
      'mcp-boom in get_console_errors',
      async () => text(await ok('get_console_errors', { session_id: sessionId })),
      (s) => s.includes('mcp-boom 42'),
    );
    const events = json<Array<{ event: { type: string; data?: unknown } }>>(
      await ok('get_telemetry', { session_id: sessionId, type: 'console_error', order: 'desc', limit: 5 }),
    );
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.event.type === 'console_error')).toBe(true);
    expect(JSON.stringify(events)).toContain('mcp-boom 42');
  });

  it('exec runs a command in the session’s jail and answers its output', async () => {
    const r = json<{ exit_code: number; stdout: string; stderr: string }>(
      await ok('exec', { session_id: sessionId, command: 'sh', args: ['-c', 'echo $((6*7)); ls /downloads; echo err >&2'] }),
    );
    expect(r).toMatchObject({ exit_code: 0, stdout: '42\nreport.csv\n', stderr: 'err\n' });
  });

  it('start_replay and stop_replay record one replay that list_replays and replays:// show', async () => {
    const started = json<{ replay_id: string }>(await ok('start_replay', { session_id: sessionId }));
    expect((await scoped.browsers.replays.list(sessionId)).map((r) => r.replay_id)).toContain(started.replay_id);
    const stopped = json<{ replay_id: string; finished_at?: string | null }>(await ok('stop_replay', { session_id: sessionId, replay_id: started.replay_id }));
    expect(stopped.replay_id).toBe(started.replay_id);
    const listed = json<Array<{ replay_id: string }>>(await ok('list_replays', { session_id: sessionId }));
    expect(listed.map((r) => r.replay_id)).toEqual([started.replay_id]);
    expect((await resource<Array<{ replay_id: string }>>(`replays://${sessionId}`)).map((r) => r.replay_id)).toEqual([started.replay_id]);
  });

  it('resources list and read the browsers and profiles of the key’s project', async () => {
    const uris = (await mcp.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['browsers://', 'profiles://', 'apps://']));
    const templates = (await mcp.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(['browsers://{session_id}', 'profiles://{name}', 'apps://{app_name}', 'replays://{session_id}']));
    expect((await resource<Array<{ session_id: string }>>('browsers://')).map((b) => b.session_id)).toEqual([sessionId]);
    expect(await resource(`browsers://${sessionId}`)).toMatchObject({ session_id: sessionId, profile: { name: PROFILE } });
    expect((await resource<Array<{ name: string }>>('profiles://')).map((p) => p.name)).toEqual([PROFILE]);
    expect(await resource(`profiles://${PROFILE}`)).toMatchObject({ id: profileId, name: PROFILE });
    await expect(mcp.readResource({ uri: 'browsers://nope' })).rejects.toThrow(/not_found/);
  });

  it('delete_browser saves the session into the profile; list_profiles shows it; delete_profile removes it', async () => {
    await ok('navigate', { session_id: sessionId, url: `${site.url}/cookie` });
    await ok('delete_browser', { session_id: sessionId });
    const saved = await pollUntil(
      'the cookie saved into the profile',
      async () => Buffer.from(await (await scoped.profiles.download(profileId, { format: 'tar' })).arrayBuffer()).toString('latin1'),
      (tar) => tar.includes('mcp_saved'),
      50,
    );
    expect(saved).toContain('Cookies');
    expect(json<Array<{ id: string; name: string }>>(await ok('list_profiles'))).toEqual([expect.objectContaining({ id: profileId, name: PROFILE })]);
    expect(text(await ok('delete_profile', { profile_name: PROFILE }))).toContain('deleted');
    await expect(scoped.profiles.retrieve(profileId)).rejects.toMatchObject({ status: 404 });
    expect(text(await ok('list_profiles'))).toContain('No profiles');
  });
});

describe('app tools on one deployment and one invocation', () => {
  it('lists the app and its deployment, reads the deployment, invokes an action and reads the invocation; apps:// agree', async () => {
    expect(text(await ok('list_apps'))).toBe('No apps found');
    const { final } = await deploy(scoped, { 'index.ts': TINY_APP }, { version: '1.0.0' });
    expect(final.status).toBe('running');

    const apps = json<Array<{ app_name: string; version: string; actions: Array<{ name: string }> }>>(await ok('list_apps', { app_name: 'mcp-tiny' }));
    expect(apps).toEqual([expect.objectContaining({ app_name: 'mcp-tiny', version: '1.0.0', actions: [expect.objectContaining({ name: 'echo' })] })]);
    expect(await resource('apps://')).toEqual(apps);
    expect(await resource('apps://mcp-tiny')).toEqual(apps);

    const deps = json<Array<{ id: string }>>(await ok('list_deployments', { app_name: 'mcp-tiny' }));
    expect(deps.map((d) => d.id)).toEqual([final.id]);
    expect(text(await ok('list_deployments', { app_name: 'no-such-app' }))).toBe('No deployments found');
    expect(json(await ok('get_deployment', { deployment_id: final.id }))).toMatchObject({ id: final.id, status: 'running', entrypoint_rel_path: 'index.ts' });

    const inv = json<{ id: string; status: string; output?: string }>(
      await ok('invoke_action', { app_name: 'mcp-tiny', action_name: 'echo', payload: JSON.stringify({ n: 42 }) }),
    );
    expect(inv.status).toBe('succeeded');
    expect(JSON.parse(inv.output ?? 'null')).toEqual({ echoed: { n: 42 } });
    expect(json(await ok('get_invocation', { invocation_id: inv.id }))).toEqual(inv);
    expect((await scoped.invocations.retrieve(inv.id)).status).toBe('succeeded');
  });
});
