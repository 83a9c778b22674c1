/**
 * Web console, Replays pane: start a recording of a page that keeps changing, stop it, and
 * play it in the in-app <video> (the MP4 from the session's JWT URL: decoded, duration > 0);
 * download it through the transport (an MP4 file arrives).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { createSession, openPane, startLocalSite, type LocalSite, TEST_TIMEOUT } from './session-panes-helpers.js';

let c: Console;
let site: LocalSite;

beforeAll(async () => {
  site = await startLocalSite();
  c = await openConsole();
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

describe('session pane: replays', () => {
  it(
    'records, stops, plays and downloads a replay',
    async () => {
      const { page, te } = c;
      const s = await createSession(c, { start_url: `${site.url}/console` });
      await openPane(c, s.session_id, 'replays', 'Replays');
      await page.getByRole('heading', { name: 'No replays yet' }).waitFor();
      await page.getByLabel('Framerate (fps)').fill('10');
      await page.getByRole('button', { name: 'Start recording' }).click();
      const row = page.locator('table.replays tbody tr').first();
      await expect.poll(() => row.textContent(), { timeout: 90_000 }).toContain('recording');
      // Let it capture something: wait until the list's length column shows at least 2 s.
      await expect.poll(async () => (await row.locator('td').nth(2).textContent())!.trim(), { timeout: 120_000 }).toMatch(/^0:0[2-9]|^0:[1-5]\d|^[1-9]/);
      await row.getByRole('button', { name: 'Stop' }).click();

      const video = page.getByLabel('Replay player');
      await video.waitFor({ timeout: 120_000 });
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 120_000 }).toBeGreaterThanOrEqual(2);
      expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(0);
      expect(await row.textContent()).toContain('ready');
      // Seek into the recording and wait until that frame is decoded.
      await video.evaluate(
        (v: HTMLVideoElement) =>
          new Promise<void>((resolve) => {
            v.addEventListener('seeked', () => resolve(), { once: true });
            v.currentTime = Math.min(1, v.duration / 2);
          }),
      );
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
      await video.hover();
      await c.screenshot('session-pane-replays');

      const replays = await te.client.browsers.replays.list(s.session_id);
      expect(replays).toHaveLength(1);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download ${replays[0].replay_id}` }).click()]);
      expect(download.suggestedFilename()).toBe(`replay-${replays[0].replay_id}.mp4`);
      const mp4 = await downloadBytes(download);
      expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    },
    TEST_TIMEOUT,
  );
});
