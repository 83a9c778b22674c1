/**
 * Web console, issue 17: the replay player's event timeline (clicking an event seeks the video,
 * the playhead highlights the events at it, categories filter the track), the live view's
 * track, and the Inspect pane (tabs with Inspect opening Chromium's DevTools on that tab in a new
 * browser tab; the HAR download, and with bodies once the pane's switch keeps them). Real Chromium on both sides; screenshots go to
 * resources/screenshots for the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { createSession, openPane, startLocalSite, type LocalSite, TEST_TIMEOUT } from './session-panes-helpers.js';
import { pollUntil } from '../helpers/poll-until.js';

const SHOTS = path.resolve('resources/screenshots');
const LOAD = { console: { enabled: true }, page: { enabled: true }, network: { enabled: true } };

let c: Console;
let site: LocalSite;

beforeAll(async () => {
  site = await startLocalSite();
  c = await openConsole();
  fs.mkdirSync(SHOTS, { recursive: true });
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

/** The video lands on a frame: within one frame (10 fps) of the asked time. */
const ONE_FRAME = 0.1;

describe('replay timeline', () => {
  it(
    'shows the telemetry under the video; clicking an event seeks, playing highlights, filters hide',
    async () => {
      const { page, te } = c;
      const s = await createSession(c, { start_url: `${site.url}/console`, telemetry: { browser: LOAD } });
      const started = (await (await te.api(`/browsers/${s.session_id}/replays`, { method: 'POST', json: { framerate: 10 } })).json()) as {
        replay_id: string;
        started_at: string;
      };
      // Let the page log a dozen lines into the recording (it logs every 300 ms).
      const since = new Date(started.started_at).getTime() * 1000;
      await pollUntil(
        'console lines during the recording',
        async () =>
          (await (await te.api(`/browsers/${s.session_id}/telemetry/events?category=console&offset=0&limit=1000`)).json()) as Array<{ event: { ts: number } }>,
        (ev) => ev.filter((e) => e.event.ts > since).length >= 12,
        600,
      );
      expect((await te.api(`/browsers/${s.session_id}/replays/${started.replay_id}/stop`, { method: 'POST' })).status).toBe(204);

      await openPane(c, s.session_id, 'replays', 'Replays');
      const play = page.getByRole('button', { name: `Play ${started.replay_id}` });
      await play.waitFor({ timeout: 180_000 });
      await play.click();
      const video = page.getByLabel('Replay player');
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 120_000 }).toBeGreaterThanOrEqual(1);
      const timeline = page.getByRole('region', { name: 'Replay timeline' });
      const consoleRows = timeline.locator('.timeline-list li').filter({ hasText: 'console_log' });
      await expect.poll(() => consoleRows.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(6);

      // Only events inside the video can be sought to: the recording starts (ffmpeg) and ends a
      // little apart from the telemetry around it.
      const duration = await video.evaluate((v: HTMLVideoElement) => v.duration);
      const offsets = await consoleRows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset-ms')) / 1000));
      const inside = offsets.map((o, i) => ({ o, i })).filter(({ o }) => o >= 0.2 && o <= duration - 0.3);
      expect(inside.length).toBeGreaterThanOrEqual(3);
      const distance = async (t: number) => Math.abs((await video.evaluate((v: HTMLVideoElement) => v.currentTime)) - t);

      // Clicking an event in the list seeks the video to it, and that event is highlighted.
      const first = inside[Math.floor(inside.length / 2)];
      const row = consoleRows.nth(first.i);
      await row.getByRole('button').click();
      await expect.poll(() => distance(first.o)).toBeLessThanOrEqual(ONE_FRAME);
      await expect.poll(() => row.getAttribute('class')).toContain('tl-active');

      // Clicking a mark on the track seeks too.
      const marks = timeline.locator('.timeline-track .timeline-mark.tl-console');
      const markOffsets = await marks.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset-ms')) / 1000));
      const m = markOffsets.findIndex((o) => o >= 0.2 && o <= duration - 0.3 && Math.abs(o - first.o) > 2 * ONE_FRAME);
      expect(m).toBeGreaterThanOrEqual(0);
      await marks.nth(m).dispatchEvent('click');
      await expect.poll(() => distance(markOffsets[m])).toBeLessThanOrEqual(ONE_FRAME);

      // The video moving by itself (as when playing) highlights the events at its playhead.
      const last = inside[inside.length - 1];
      const third = consoleRows.nth(last.i);
      await video.evaluate((v: HTMLVideoElement, t: number) => (v.currentTime = t), last.o + 0.05);
      await expect.poll(() => third.getAttribute('class')).toContain('tl-active');
      const early = offsets.findIndex((o) => o < last.o - 2);
      if (early >= 0) expect(await consoleRows.nth(early).getAttribute('class')).not.toContain('tl-active');
      await video.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'replay-timeline.png'), fullPage: true });

      // Filters: console events leave the track and the list.
      await timeline.getByRole('checkbox', { name: 'console' }).uncheck();
      expect(await timeline.locator('.timeline-mark.tl-console').count()).toBe(0);
      expect(await consoleRows.count()).toBe(0);
    },
    TEST_TIMEOUT,
  );
});

describe('Inspect pane and the live track', () => {
  it(
    'lists the tabs, opens DevTools on one in a new tab, downloads the HAR; the live view has the track',
    async () => {
      const { page, context, te } = c;
      const s = await createSession(c, { start_url: `${site.url}/console`, telemetry: { browser: LOAD } });
      await openPane(c, s.session_id, 'inspect', 'Inspect');
      const inspect = page.getByRole('button', { name: 'Inspect console ticker', exact: true });
      await inspect.waitFor();
      const [devtools] = await Promise.all([context.waitForEvent('page', { timeout: 120_000 }), inspect.click()]);
      devtools.setDefaultTimeout(120_000);
      await devtools.getByText('ticking').first().waitFor();
      expect(devtools.url()).toMatch(/\/devtools-frontend\/[\w.-]+\/inspector\.html/);
      await devtools.close();

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download HAR' }).click()]);
      expect(download.suggestedFilename()).toBe(`${s.session_id}.har`);
      const har = JSON.parse((await downloadBytes(download)).toString('utf8')) as {
        log: { version: string; entries: Array<{ request: { url: string }; response: { status: number } }> };
      };
      expect(har.log.version).toBe('1.2');
      expect(har.log.entries.find((e) => e.request.url === `${site.url}/console`)?.response.status).toBe(200);

      // With bodies: the session keeps response bodies once asked, for responses from then on.
      await page.getByRole('button', { name: 'Keep response bodies' }).click();
      await page.getByRole('button', { name: 'Stop keeping response bodies' }).waitFor();
      expect((await te.api(`/browsers/${s.session_id}`, { method: 'PATCH', json: { start_url: `${site.url}/json?har=1` } })).status).toBe(200);
      await page.getByRole('checkbox', { name: /With bodies/ }).check();
      await page.screenshot({ path: path.join(SHOTS, 'inspect-pane.png') });
      const bodyOf = async (): Promise<string | undefined> => {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download HAR' }).click()]);
        const doc = JSON.parse((await downloadBytes(dl)).toString('utf8')) as {
          log: { entries: Array<{ request: { url: string }; response: { content: { text?: string } } }> };
        };
        return doc.log.entries.find((e) => e.request.url === `${site.url}/json?har=1`)?.response.content.text;
      };
      await expect.poll(bodyOf, { timeout: 60_000 }).toContain('"items":[1,2,3]');
      // Back to the ticking page for the live view's track.
      expect((await te.api(`/browsers/${s.session_id}`, { method: 'PATCH', json: { start_url: `${site.url}/console` } })).status).toBe(200);

      await openPane(c, s.session_id, 'live', 'Live view');
      const live = page.getByRole('region', { name: 'Live timeline' });
      await expect.poll(() => live.locator('.timeline-mark').count(), { timeout: 60_000 }).toBeGreaterThan(3);
      await page.screenshot({ path: path.join(SHOTS, 'live-timeline.png'), fullPage: true });
    },
    TEST_TIMEOUT,
  );
});
