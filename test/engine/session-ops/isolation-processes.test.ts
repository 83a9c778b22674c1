/**
 * Session processes are isolated (bwrap with its own network namespace, no capabilities):
 * inside, 127.0.0.1:9222 (`CDP_URL`) is the session's own Chromium — HTTP discovery and a real
 * CDP WebSocket round trip, the browser id matching the session's — while another session's
 * DevTools port, the session's own real DevTools port, the engine and any other loopback
 * service are refused (each shown reachable from the host first); the CDP socket cannot be
 * removed or unmounted, no capability is left, and host files (the engine's admin key, another
 * session's files and profile) are not there. Without bwrap (`BROWSERDECK_NO_BWRAP=1`) a
 * process still gets `CDP_URL`, pointing at its browser's real address.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { assertReachableFromHost, handleOf, startIsolationFixture, type IsolationFixture } from './isolation-helpers.js';

let f: IsolationFixture;
let browser: Browser;
const sandboxed = Boolean(await usableBwrap());
const text = (s?: string) => Buffer.from(s ?? '', 'base64').toString();

beforeAll(async () => {
  f = await startIsolationFixture();
  // A recognisable page in A's browser, to find from inside the sandbox.
  browser = await chromium.connectOverCDP((await f.te.client.browsers.retrieve(f.a)).cdp_ws_url);
  await browser.contexts()[0].pages()[0].setContent('<title>session-a-marker</title>');
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  await f?.hostService.close();
  await f?.te.stop();
});

/** Runs a Node ES module inside a process of session `id` and returns what it prints as JSON. */
async function nodeIn(id: string, script: string, arg: unknown = null): Promise<Record<string, unknown>> {
  const r = await f.te.client.browsers.process.exec(id, {
    command: 'node',
    args: ['--experimental-websocket', '--no-warnings', '--input-type=module', '-e', script, JSON.stringify(arg)],
  });
  expect(r.exit_code, text(r.stderr_b64)).toBe(0);
  return JSON.parse(text(r.stdout_b64));
}

const PROBE = `
const urls = JSON.parse(process.argv[1]);
const out = {};
for (const [name, url] of Object.entries(urls)) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(30000) });
    out[name] = 'status ' + res.status;
  } catch (err) {
    out[name] = 'error ' + (err.cause?.code ?? err.message);
  }
}
console.log(JSON.stringify(out));`;

describe.runIf(sandboxed)('sandboxed session processes', () => {
  it('reach their own session browser at 127.0.0.1:9222, over HTTP and CDP WebSocket', async () => {
    const r = await nodeIn(
      f.a,
      `
const version = await (await fetch('http://127.0.0.1:9222/json/version')).json();
const titles = (await (await fetch('http://127.0.0.1:9222/json/list')).json()).map((t) => t.title);
const ws = new WebSocket(version.webSocketDebuggerUrl);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
ws.send(JSON.stringify({ id: 1, method: 'Target.getTargets' }));
const reply = await new Promise((r) => { ws.onmessage = (m) => r(JSON.parse(m.data)); });
ws.close();
console.log(JSON.stringify({ env: process.env.CDP_URL, alias: process.env.CHROME_DEVTOOLS_URL, ws: version.webSocketDebuggerUrl, titles, cdpTitles: reply.result.targetInfos.map((t) => t.title) }));`,
    );
    expect(r.env).toBe('http://127.0.0.1:9222');
    expect(r.alias).toBe('http://127.0.0.1:9222');
    expect(r.ws).toBe(`ws://127.0.0.1:9222${f.browserPath(f.a)}`);
    expect(r.titles).toContain('session-a-marker');
    expect(r.cdpTitles).toContain('session-a-marker');
    // The user's NODE_OPTIONS reach the command, not the forwarder (which would fail to start).
    const opts = await f.te.client.browsers.process.exec(f.a, {
      command: 'sh',
      args: ['-c', 'echo "$NODE_OPTIONS"'],
      env: { NODE_OPTIONS: '--require /no-such-file.js' },
    });
    expect(opts.exit_code).toBe(0);
    expect(text(opts.stdout_b64)).toBe('--require /no-such-file.js\n');
  });

  it('cannot reach other sessions, the engine, or other loopback services', async () => {
    const urls = f.forbidden();
    await assertReachableFromHost(urls);
    const r = await nodeIn(f.a, PROBE, urls);
    for (const name of Object.keys(urls)) expect(r[name], name).toBe('error ECONNREFUSED');
    // B's processes get B's browser, not A's.
    const fromB = await nodeIn(
      f.b,
      `console.log(JSON.stringify({ ws: (await (await fetch('http://127.0.0.1:9222/json/version')).json()).webSocketDebuggerUrl }))`,
    );
    expect(fromB.ws).toBe(`ws://127.0.0.1:9222${f.browserPath(f.b)}`);
  });

  it('cannot replace the CDP socket, has no capabilities, and sees no host files', async () => {
    await f.te.client.browsers.fs.writeFile(f.b, 'b secret', { path: '/b-secret.txt' });
    const hostPaths = [
      path.join(f.te.dataDir, 'admin-api-key'),
      path.join(handleOf(f.te, f.b).dirs.root, 'b-secret.txt'),
      path.join(handleOf(f.te, f.b).dirs.userData, 'Local State'),
    ];
    const script = [
      'rm -f /run/browserdeck/cdp.sock; echo "rm=$?"',
      'umount /run/browserdeck/cdp.sock 2>/dev/null; echo "umount=$?"',
      'grep CapEff /proc/self/status',
      ...hostPaths.map((p, i) => `cat '${p}' 2>/dev/null; echo "read${i}=$?"`),
    ].join('\n');
    const r = await f.te.client.browsers.process.exec(f.a, { command: 'sh', args: ['-c', script] });
    const out = text(r.stdout_b64);
    expect(out).toMatch(/^rm=[1-9]/m);
    expect(out).toMatch(/^umount=[1-9]/m);
    expect(out).toMatch(/^CapEff:\s+0+$/m);
    for (let i = 0; i < hostPaths.length; i++) expect(out, hostPaths[i]).toMatch(new RegExp(`^read${i}=[1-9]`, 'm'));
    expect(out).not.toContain('bdk_');
    expect(out).not.toContain('b secret');
    // Still forwarded after the attempt.
    const after = await nodeIn(f.a, `console.log(JSON.stringify({ ok: (await fetch('http://127.0.0.1:9222/json/version')).ok }))`);
    expect(after.ok).toBe(true);
  });
});

describe('session processes without bwrap (BROWSERDECK_NO_BWRAP=1)', () => {
  it('still get CDP_URL, the browser’s real address', async () => {
    process.env.BROWSERDECK_NO_BWRAP = '1';
    // Created while bwrap is off, so its browser is unjailed too and has a host port to hand out.
    const s = await f.te.client.browsers.create({ headless: true });
    try {
      const r = await f.te.client.browsers.process.exec(s.session_id, { command: 'sh', args: ['-c', 'echo "$CDP_URL"'] });
      expect(f.devtoolsHost(s.session_id)).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(text(r.stdout_b64).trim()).toBe(`http://${f.devtoolsHost(s.session_id)}`);
    } finally {
      delete process.env.BROWSERDECK_NO_BWRAP;
      await f.te.client.browsers.deleteByID(s.session_id);
    }
  });
});
