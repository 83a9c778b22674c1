/**
 * Which tab the default executor binds `page` to (spec §7.1: "an active tab reported by
 * Chrome"). Chrome reports no "active" flag over CDP; what it does report is each page's
 * `document.visibilityState` — "visible" for every window's foreground tab only, headless or
 * not — and `/json/list` ordered by last activation. So: the visible pages, the most recently
 * activated first; none visible (a client emulating focus makes them all "visible", a minimized
 * window none) → the most recently activated page. Named executors' own background tabs are
 * never the default's. Undefined when the browser has no page open (the executor opens one).
 */
import type { SessionHandle } from '../session/session-handle.js';
import { SessionCdpSlot, type SessionCdp } from '../cdp/session-cdp.js';
import { devtoolsJson } from '../chromium/devtools-address.js';

interface ListedTarget {
  id: string;
  type: string;
}

/** How long one page may take to say whether it is visible (a page stuck in a dialog does not). */
const VISIBILITY_TIMEOUT_MS = 2_000;

export async function activeTab(handle: SessionHandle, excluded: ReadonlySet<string>): Promise<string | undefined> {
  const { wsUrl } = await handle.ready();
  const pages = (await devtoolsJson<ListedTarget[]>(wsUrl, '/json/list')).filter((t) => t.type === 'page' && !excluded.has(t.id)).map((t) => t.id);
  if (pages.length <= 1) return pages[0];
  const cdp = handle.scope.get(SessionCdpSlot);
  const visible = await Promise.all(pages.map((id) => isVisible(cdp, id)));
  return pages.find((_, i) => visible[i]) ?? pages[0];
}

async function isVisible(cdp: SessionCdp, targetId: string): Promise<boolean> {
  let sessionId: string | undefined;
  try {
    sessionId = (await cdp.send('Target.attachToTarget', { targetId, flatten: true }, undefined, VISIBILITY_TIMEOUT_MS)).sessionId;
    const r = await cdp.send('Runtime.evaluate', { expression: 'document.visibilityState', returnByValue: true }, sessionId, VISIBILITY_TIMEOUT_MS);
    return r.result.value === 'visible';
  } catch {
    return false;
  } finally {
    if (sessionId) void cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}
