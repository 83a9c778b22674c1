/**
 * A browser's open tabs, read before a deliberate restart and opened again after it (saving a
 * running browser into a profile, Kernel spec §8: "tabs are restored but pages reload and
 * in-page state is lost"). Only the URLs come back: each page loads anew, as Kernel's do.
 * Tabs are the default context's `page` targets; the engine's hidden helper pages are `other`
 * targets and DevTools windows are left out, so neither is duplicated into a visible tab.
 */
import type { CdpConnection } from './cdp-connection.js';
import { firstTab } from './first-tab-navigation.js';

/**
 * The URLs of the browser's tabs in its default context. Tabs of contexts clients created
 * (incognito-like, gone with the restart) are not carried into the default one.
 */
export async function openTabUrls(control: CdpConnection): Promise<string[]> {
  const [{ targetInfos }, { browserContextIds }] = await Promise.all([control.send('Target.getTargets'), control.send('Target.getBrowserContexts')]);
  const created = new Set(browserContextIds);
  return targetInfos
    .filter((t) => t.type === 'page' && !t.url.startsWith('devtools://') && !(t.browserContextId && created.has(t.browserContextId)))
    .map((t) => t.url);
}

/**
 * Opens `urls` as the (restarted) browser's tabs: the first in its initial tab, the rest as new
 * background tabs. Returns once each navigation has started; a page that fails to load shows
 * Chromium's error page, as a restored tab would.
 */
export async function reopenTabs(control: CdpConnection, urls: readonly string[]): Promise<void> {
  if (!urls.length) return;
  const first = await firstTab(control);
  const { sessionId } = await control.send('Target.attachToTarget', { targetId: first, flatten: true });
  try {
    // Not awaiting the load: a slow page must not hold the restart's answer.
    await control.send('Page.navigate', { url: urls[0] }, { sessionId, timeoutMs: 10_000 });
  } finally {
    await control.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
  for (const url of urls.slice(1)) await control.send('Target.createTarget', { url, background: true });
}
