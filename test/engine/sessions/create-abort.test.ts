/**
 * One deadline for a create (issue 13 item 5): the client's connection and the configured
 * `createDeadlineMs` bound everything `POST /browsers` starts. A client that goes away while its
 * browser is starting leaves nothing behind — no Chromium, jail or Xvfb process, no session
 * directory, no active session (the row ends as `create_aborted`); a deadline too short for a
 * launch answers the 503 `browser_launch_failed` a slow launch always got, and kills the browser.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { cmdlineOf, descendants, isAlive } from '../../helpers/proc.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { launchChromium } from '../../../src/engine/runtime/chromium/launch-chromium.js';
import { findChromium } from '../../../src/engine/runtime/chromium/find-chromium.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Browser, jail and display processes this test process (and its in-process engine) runs. */
function browserProcesses(): number[] {
  return descendants(process.pid).filter((p) => p !== process.pid && isAlive(p) && /chrom|bwrap|Xvfb/i.test(cmdlineOf(p)));
}

function sessionDirs(t: TestEngine): string[] {
  try {
    return fs.readdirSync(path.join(t.dataDir, 'sessions'));
  } catch {
    return [];
  }
}

describe('a client that goes away while its browser starts', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it.each([true, false])('aborts the create (headless: %s): no process, no directory, no active session', async (headless) => {
    const sessions = t.engine.services.sessions as SessionManager;
    // Holds every create after its launch until the create's deadline releases it, so the
    // answer can never be sent before this client has gone (what the abort must release).
    const unhold = sessions.onSessionStart(() => new Promise<void>(() => {}));
    const before = browserProcesses();
    expect(sessionDirs(t)).toEqual([]);

    const u = new URL('/browsers', t.url);
    // Headful also starts an Xvfb (in its helper jail) before the browser.
    const body = JSON.stringify({ headless });
    const req = http.request(u, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<string>((resolve) => {
      req.on('response', (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', () => resolve('gone'));
    });
    req.end(body);
    // The session exists on disk: its browser is being started (or waits in the hold above).
    for (let i = 0; i < 5000 && sessionDirs(t).length === 0; i++) await sleep(2);
    const [id] = sessionDirs(t);
    expect(id).toBeTruthy();
    req.destroy();
    expect(await answered).toBe('gone');

    // The create finishes its cleanup: the session ends with a reason.
    let row: { deleted_at?: string } = {};
    for (let i = 0; i < 3000 && !row.deleted_at; i++) {
      const r = await t.api(`/browsers/${id}?include_deleted=true`);
      if (r.status === 200) row = (await r.json()) as { deleted_at?: string };
      if (!row.deleted_at) await sleep(10);
    }
    unhold();
    expect(row.deleted_at).toBeTruthy();
    expect(sessions.get(id)).toBeUndefined();
    const active = (await (await t.api('/browsers')).json()) as Array<{ session_id: string }>;
    expect(active.map((s) => s.session_id)).not.toContain(id);
    expect(sessionDirs(t)).toEqual([]);
    expect(browserProcesses().filter((p) => !before.includes(p))).toEqual([]);
    const ended = await t.engine.context.db.selectFrom('browser_sessions').select(['ended_reason', 'pid']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(ended).toEqual({ ended_reason: 'create_aborted', pid: null });
  });
});

describe('the create deadline', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine({ createDeadlineMs: 1 });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('reaches the launch: a deadline too short answers 503 browser_launch_failed and leaves nothing', async () => {
    const before = browserProcesses();
    const r = await t.api('/browsers', { method: 'POST', json: { headless: true } });
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({
      code: 'browser_launch_failed',
      message: 'the browser could not be started: Chromium did not report its DevTools address in time',
      details: [],
    });
    expect(sessionDirs(t)).toEqual([]);
    expect(browserProcesses().filter((p) => !before.includes(p))).toEqual([]);
    const active = (await (await t.api('/browsers')).json()) as unknown[];
    expect(active).toEqual([]);
  });
});

describe('launchChromium', () => {
  it('kills a browser whose launch is aborted while it starts', async () => {
    const executable = findChromium({ env: process.env });
    expect(executable).toBeTruthy();
    const userData = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-abort-launch-'));
    try {
      const ac = new AbortController();
      const marker = `--user-data-dir=${userData}`;
      const launching = launchChromium({
        executable: executable!,
        args: ['--headless=new', '--remote-debugging-port=0', '--no-sandbox', marker, 'about:blank'],
        env: process.env,
        devtoolsSocket: path.join(userData, 'devtools.sock'),
        signal: ac.signal,
      }).then(
        () => 'launched',
        (err: Error) => err.message,
      );
      // A jail socket that never becomes ready: the launch waits (for the jail helper's word,
      // which plain Chromium never prints) until it is aborted — once the browser process exists.
      for (let i = 0; i < 5000 && !descendants(process.pid).some((p) => cmdlineOf(p).includes(marker)); i++) await sleep(1);
      ac.abort();
      expect(await launching).toBe('the browser launch was aborted');
      expect(descendants(process.pid).filter((p) => isAlive(p) && cmdlineOf(p).includes(marker))).toEqual([]);
    } finally {
      await fsp.rm(userData, { recursive: true, force: true });
    }
  });
});
