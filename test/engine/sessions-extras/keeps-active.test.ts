import { afterAll, beforeAll, describe, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
// A second of inactivity lasts 100 ms here: the 40 s timeout below runs out in 4 s.
const SECOND_MS = 100;
const TIMEOUT_SECONDS = 40;
beforeAll(async () => {
  t = await startTestEngine({ sessionSecondMs: SECOND_MS });
});
afterAll(() => t?.stop());

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

// The two cases have their own sessions and mostly wait out inactivity timeouts, so they run
// side by side (half the file's time); each uses its context's `expect`.
describe('live view and BiDi clients count as activity', () => {
  it.concurrent.for(['live view', 'BiDi'])(
    'a connected %s client keeps a session past its inactivity timeout; it ends after the client leaves',
    async (kind, { expect }) => {
      const s = await t.client.browsers.create({ headless: true, timeout_seconds: TIMEOUT_SECONDS });
      const url = kind === 'BiDi' ? s.webdriver_ws_url : s.browser_live_view_url!.replace(/^http/, 'ws').replace('/live?', '/live/ws?');
      const ws = await open(url);
      const frames: number[] = [];
      ws.on('message', (d) => {
        if (kind === 'live view' && JSON.parse(d.toString()).type === 'frame') frames.push(Date.now());
      });
      // Well past the timeout (1.3 ×) with the client connected and quiet.
      await new Promise((r) => setTimeout(r, 1.3 * TIMEOUT_SECONDS * SECOND_MS));
      expect((await t.client.browsers.list({ status: 'active' })).getPaginatedItems().map((x) => x.session_id)).toContain(s.session_id);
      if (kind === 'live view') expect(frames.length).toBeGreaterThan(0);
      const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
      ws.close();
      await closed;
      // Listing is not activity on one session (retrieving it would be), so it can watch the timeout happen.
      const ended = async () => (await t.client.browsers.list({ status: 'deleted' })).getPaginatedItems().some((x) => x.session_id === s.session_id);
      await expect.poll(ended, { timeout: 30_000, interval: 500 }).toBe(true);
    },
  );
});
