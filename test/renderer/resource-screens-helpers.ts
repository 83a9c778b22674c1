/**
 * Shared pieces of the resource-screen tests (pools, profiles, credentials, apps, system): open
 * a deep link and wait for its heading, and check that every control of the shown screen fits
 * the viewport (no horizontal overflow) at the small size the console supports, 1024×700.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { saveScreen, type Console } from './console-harness.js';

/** Opens `#<path>` and waits for the screen's heading. */
export async function go(c: Console, path: string, heading: string | RegExp): Promise<void> {
  await c.page.goto(`${c.te.url}/#${path}`);
  await c.page
    .getByRole('heading', { name: heading, exact: typeof heading === 'string' })
    .first()
    .waitFor();
}

/**
 * The controls (buttons, links, fields) of the main area whose right edge lies beyond the
 * content area's, and whether the content area scrolls sideways — at the current viewport.
 */
export async function overflowing(page: Page): Promise<{ clipped: string[]; scrollsSideways: boolean }> {
  return page.evaluate(() => {
    const main = document.querySelector('main.content') as HTMLElement;
    const right = main.getBoundingClientRect().right;
    const clipped: string[] = [];
    for (const el of main.querySelectorAll<HTMLElement>('button, a, input, select, textarea')) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue; // not shown
      if (r.right > right + 0.5)
        clipped.push(
          `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 40)}" ends at ${Math.round(r.right)} > ${Math.round(right)}`,
        );
    }
    return { clipped, scrollsSideways: main.scrollWidth > main.clientWidth + 1 };
  });
}

/** Fails when the shown screen does not fit 1024×700 (saved as `<name>-1024x700`); the viewport is put back afterwards. */
export async function expectFitsSmall(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1024, height: 700 });
  try {
    await saveScreen(page, `${name}-1024x700`);
    expect(await overflowing(page)).toEqual({ clipped: [], scrollsSideways: false });
  } finally {
    if (before) await page.setViewportSize(before);
  }
}
