/**
 * Gets a browser's localStorage onto disk before it is closed for a profile save.
 *
 * Chromium keeps localStorage writes in its storage service (a utility process) and commits
 * them to LevelDB on a timer of seconds. `Browser.close` asks for an immediate commit, but the
 * write runs on the service's database thread while the browser is already exiting, and the
 * service goes with it: on a loaded machine the last writes were lost (profile-roundtrip, about
 * one close in six with the CPU busy; a cookie and IndexedDB from the same moment survived).
 * The service also commits at once when the last page of an origin lets go of its storage area,
 * and then nothing is exiting: so the pages are closed first, a blank tab keeping the browser up
 * (a headful browser quits with its last window), and the commit gets a moment to land.
 *
 * Best effort: a browser that does not answer is closed as before, and the caller still decides
 * from the close itself whether its files can be saved.
 */
import type { CdpConnection } from './cdp-connection.js';

/** After the pages are gone, the time the storage service's commit gets (a write of kilobytes). */
const SETTLE_MS = 200;

export async function flushLocalStorage(control: CdpConnection, budgetMs = 5_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const pages = async () =>
    (await control.send('Target.getTargets', undefined, { timeoutMs: left() })).targetInfos.filter((t) => t.type === 'page').map((t) => t.targetId);
  try {
    const open = await pages();
    if (open.length === 0) return;
    const { targetId: blank } = await control.send('Target.createTarget', { url: 'about:blank' }, { timeoutMs: left() });
    const closing = open.filter((id) => id !== blank);
    await Promise.all(closing.map((targetId) => control.send('Target.closeTarget', { targetId }, { timeoutMs: left() }).catch(() => {})));
    // closeTarget answers when the close starts; the storage area is released as the page goes.
    while (Date.now() < deadline && (await pages()).some((id) => closing.includes(id))) await sleep(25);
    await sleep(Math.min(SETTLE_MS, left()));
  } catch {
    // Unanswered or closed: Browser.close follows regardless.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
