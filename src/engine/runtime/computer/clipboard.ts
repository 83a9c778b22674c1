/**
 * The session clipboard is the browser's own: text written through the API is what Ctrl+V
 * pastes in a page, and what a page copies is what the API reads — headless too, where
 * Chromium keeps an in-memory clipboard. Access goes through a hidden helper page on a
 * synthetic HTTPS origin that alone is granted clipboard permission and has focus emulated
 * (the async clipboard API requires a focused secure document). If the browser refuses,
 * a per-session copy of the last written text keeps read-after-write working.
 */
import { HiddenPage } from '../cdp/hidden-page.js';
import type { SessionCdp } from '../cdp/session-cdp.js';

const ORIGIN = 'https://clipboard.browserdeck.invalid';

export class SessionClipboard {
  private page?: Promise<HiddenPage>;
  private lastWritten = '';

  constructor(private readonly cdp: SessionCdp) {}

  async write(text: string): Promise<void> {
    this.lastWritten = text;
    const page = await this.helper().catch(() => undefined);
    await page?.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`, 10_000).catch(() => undefined);
  }

  async read(): Promise<string> {
    const page = await this.helper().catch(() => undefined);
    const text = await page?.evaluate<string>('navigator.clipboard.readText()', 10_000).catch(() => undefined);
    return typeof text === 'string' ? text : this.lastWritten;
  }

  private helper(): Promise<HiddenPage> {
    if (!this.page) {
      const p = this.open();
      this.page = p;
      p.catch(() => this.page === p && (this.page = undefined));
    }
    return this.page.then((page) => {
      if (page.alive) return page;
      this.page = undefined;
      return this.helper();
    });
  }

  private async open(): Promise<HiddenPage> {
    const page = await HiddenPage.open(this.cdp);
    try {
      await page.goto(ORIGIN);
      await page.send('Emulation.setFocusEmulationEnabled', { enabled: true });
      await this.cdp.send('Browser.grantPermissions', { origin: ORIGIN, permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'] });
      return page;
    } catch (err) {
      await page.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const p = this.page;
    this.page = undefined;
    await p?.then((page) => page.close()).catch(() => {});
  }
}
