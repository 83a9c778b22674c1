/**
 * Navigates a browser's first tab (opening one when there is none) over the engine's control
 * connection and returns once the navigation has committed — the page may still be loading.
 * When the page cannot be reached (DNS, refused) Chromium answers with `errorText` and shows its
 * error page in the tab; whether that is a failure is the caller's call (a session's start page
 * is not, a pool's acquire with `start_url` is).
 */
import type { CdpConnection } from './cdp-connection.js';

export async function navigateFirstTab(control: CdpConnection, url: string, timeoutMs = 10_000): Promise<{ errorText?: string }> {
  const { targetInfos } = await control.send<{ targetInfos: Array<{ targetId: string; type: string }> }>('Target.getTargets');
  let page = targetInfos.find((t) => t.type === 'page');
  if (!page) page = { ...(await control.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' })), type: 'page' };
  const { sessionId } = await control.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  try {
    const r = await control.send<{ errorText?: string }>('Page.navigate', { url }, { sessionId, timeoutMs });
    return r.errorText ? { errorText: r.errorText } : {};
  } finally {
    // Detaching our CDP session does not stop the navigation.
    await control.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}
