/**
 * A session's first page: its first tab made before telemetry starts watching for a navigation
 * the engine is about to make, and a deferred `start_url` loaded in it once the collector
 * watches (the start page's own load, requests and console lines are telemetry too).
 */
import { firstTab, navigateFirstTab } from '../chromium/first-tab-navigation.js';
import type { LaunchedBrowser } from '../chromium/launch-chromium.js';

/**
 * Makes sure the browser has its first tab before telemetry starts watching for a navigation
 * the engine is about to make (a deferred start_url, a pool acquire with start_url): the
 * collector then attaches to that tab as it connects instead of racing the tab's creation and
 * missing the load's first request. A failure is left to the navigation that follows.
 */
export async function prepareFirstTab(b: LaunchedBrowser | undefined): Promise<void> {
  if (b) await firstTab(b.control).catch(() => {});
}

/**
 * Loads `url` in the first tab and waits until it commits (bounded). A page that cannot be
 * reached (DNS, refused) only leaves Chromium's error page, as a start URL on the command line
 * would: logged, never thrown. No browser right now (a crash): its relaunch already gets
 * start_url on the command line.
 */
export async function openStartUrl(b: LaunchedBrowser | undefined, url: string, say: (line: string) => void): Promise<void> {
  if (!b) return;
  try {
    const r = await navigateFirstTab(b.control, url);
    if (r.errorText) say(`start_url did not load: ${r.errorText}\n`);
  } catch (err) {
    say(`could not open start_url: ${(err as Error).message}\n`);
  }
}
