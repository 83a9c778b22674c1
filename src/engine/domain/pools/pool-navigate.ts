/**
 * `start_url` on acquire: the warm browser's first tab navigates there before the session is
 * handed out (the navigation is started and committed; the page may still be loading).
 */
import type { CdpConnection } from '../../runtime/chromium/cdp-connection.js';

export async function navigateFirstPage(browser: { control: CdpConnection }, url: string): Promise<void> {
  const cdp = browser.control;
  const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>('Target.getTargets');
  let page = targetInfos.find((t) => t.type === 'page');
  if (!page) page = { ...(await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' })), type: 'page' };
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  try {
    const r = await cdp.send<{ errorText?: string }>('Page.navigate', { url }, { sessionId });
    if (r.errorText) throw new Error(`navigation to start_url failed: ${r.errorText}`);
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}
