/**
 * A caller waiting for a session's browser (a CDP connection, code run, screenshot…) while the
 * browser is being replaced is released with 404 `session_ended` when the session ends then —
 * before, the wait never ended (a restart interrupted by the end never produces a browser), and
 * held the caller's socket or request open forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
});

describe('waiting for a session browser', () => {
  it('ends with session_ended when the session ends during a browser restart', async () => {
    const s = await t.client.browsers.create({ headless: true });
    const rt = (t.engine.services.sessions as SessionManager).get(s.session_id)!;
    // Replacing the browser (what loading extensions does) leaves a moment with no browser.
    const restarting = rt.loadExtensions([]).catch((err: Error) => err);
    for (let i = 0; i < 2000 && rt.browser; i++) await new Promise((r) => setTimeout(r, 2));
    expect(rt.browser).toBeUndefined();
    const waiting = rt.ready().then(
      () => 'resolved',
      (err: { status?: number; code?: string }) => `${err.status} ${err.code}`,
    );
    await t.client.browsers.deleteByID(s.session_id);
    expect(await waiting).toBe('404 session_ended');
    await restarting;
    // And after the end, at once.
    await expect(rt.ready()).rejects.toMatchObject({ status: 404, code: 'session_ended' });
  });
});
