/**
 * Submits a login step the way a person does (Enter in the last field, or a click on the
 * button), and makes sure the page really received it. Chromium sometimes drops input that
 * reaches a page right after it loaded (seen under load: the key press is acknowledged, yet no
 * keydown reaches the document and the form is never sent), and a flow that pressed once would
 * then wait for a page that never comes. So before each attempt a capturing listener notes
 * whether the key or pointer event arrived; an attempt the page never saw is made again, a few
 * times. One the page saw is never repeated (no double submit).
 */
import type { Page } from 'playwright-core';

/** Where the probe keeps its note on the page's window (a name no site uses). */
const PROBE = '__browserdeckFlowInputSeen';
const ATTEMPTS = 4;
/** How long one press or click may take when the engine does not say (config.identity.flowActionTimeoutMs). */
export const DEFAULT_FLOW_ACTION_TIMEOUT_MS = 5_000;

export type SubmitAction = { press: string } | { click: string };

/**
 * Arms the probe: true once a keydown or pointerdown reaches the window. Registered in the
 * capture phase on the window, the first target of every event's path. False when the page's
 * document is already going away (a navigation started: nothing left to submit).
 */
function arm(page: Page): Promise<boolean> {
  // Source text: the engine is compiled without the DOM's types.
  const source = `(() => {
    window[${JSON.stringify(PROBE)}] = false;
    const seen = () => { window[${JSON.stringify(PROBE)}] = true; };
    window.addEventListener('keydown', seen, { capture: true, once: true });
    window.addEventListener('pointerdown', seen, { capture: true, once: true });
    return true;
  })()`;
  return page.evaluate(source).then(
    () => true,
    () => false,
  );
}

/** Whether the page saw the attempt; a page that navigated away (its document gone) did. */
function seen(page: Page): Promise<boolean> {
  return page.evaluate(`window[${JSON.stringify(PROBE)}] !== false`).then(
    (v) => v === true,
    () => true,
  );
}

/**
 * Presses Enter in `press` (a selector) or clicks `click`, until the page saw it (at most
 * ATTEMPTS times). Does not wait for the navigation it starts: a site may answer a submit later
 * than an action's timeout (the flow's settle loop waits for the next page).
 */
export async function submitStep(page: Page, action: SubmitAction, timeoutMs = DEFAULT_FLOW_ACTION_TIMEOUT_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (!(await arm(page))) return;
    if ('press' in action) await page.press(action.press, 'Enter', { timeout: timeoutMs, noWaitAfter: true });
    else await page.click(action.click, { timeout: timeoutMs, noWaitAfter: true });
    if ((await seen(page)) || attempt === ATTEMPTS) return;
    await page.waitForTimeout(250 * attempt);
  }
}
