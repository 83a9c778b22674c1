/**
 * Navigates a browser's first tab (opening one when there is none) over the engine's control
 * connection and returns once the navigation has committed — the page may still be loading.
 * When the page cannot be reached (DNS, refused) Chromium answers with `errorText` and shows its
 * error page in the tab; whether that is a failure is the caller's call (a session's start page
 * is not, a pool's acquire with `start_url` is).
 */
import type { CdpConnection } from './cdp-connection.js';

/** How long to wait for Chromium's own initial tab before opening one. */
const INITIAL_TAB_WAIT_MS = 2_000;
const POLL_MS = 25;

async function pageTarget(control: CdpConnection): Promise<string | undefined> {
  const { targetInfos } = await control.send('Target.getTargets');
  return targetInfos.find((t) => t.type === 'page')?.targetId;
}

/**
 * The browser's first tab: Chromium's initial one (a browser that has just started may still be
 * opening it — readiness does not wait for it), else a new about:blank tab. Call it before
 * telemetry starts watching a browser that is about to navigate, so the collector attaches to
 * the tab that will load the page instead of racing its creation.
 */
export async function firstTab(control: CdpConnection, waitMs = INITIAL_TAB_WAIT_MS): Promise<string> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const id = await pageTarget(control);
    if (id) return id;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return (await control.send('Target.createTarget', { url: 'about:blank' })).targetId;
}

export async function navigateFirstTab(control: CdpConnection, url: string, timeoutMs = 10_000): Promise<{ errorText?: string }> {
  const targetId = await firstTab(control);
  const { sessionId } = await control.send('Target.attachToTarget', { targetId, flatten: true });
  try {
    const r = await control.send('Page.navigate', { url }, { sessionId, timeoutMs });
    return r.errorText ? { errorText: r.errorText } : {};
  } finally {
    // Detaching our CDP session does not stop the navigation.
    await control.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}
