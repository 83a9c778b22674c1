/**
 * `start_url` on acquire: the warm browser's first tab navigates there before the session is
 * handed out (the navigation is started and committed; the page may still be loading). A page
 * that cannot be reached fails the acquire (the browser goes back to the pool).
 */
import type { CdpConnection } from '../../runtime/chromium/cdp-connection.js';
import { navigateFirstTab } from '../../runtime/chromium/first-tab-navigation.js';

export async function navigateFirstPage(browser: { control: CdpConnection }, url: string): Promise<void> {
  const r = await navigateFirstTab(browser.control, url);
  if (r.errorText) throw new Error(`navigation to start_url failed: ${r.errorText}`);
}
