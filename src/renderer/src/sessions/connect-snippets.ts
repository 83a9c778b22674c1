/**
 * The Connect card's code: Playwright, Puppeteer and `@onkernel/sdk` snippets filled in for one
 * session. Each is built twice — with the tokenised URL (what Copy puts on the clipboard) and
 * with the token redacted (what the screen shows) — from the same template.
 */
import type { Session } from '../../../shared/wire/sessions';
import { redactJwt } from './session-urls';

export const SNIPPET_KINDS = ['playwright', 'puppeteer', 'sdk'] as const;
export type SnippetKind = (typeof SNIPPET_KINDS)[number];
export const SNIPPET_TITLES: Record<SnippetKind, string> = { playwright: 'Playwright', puppeteer: 'Puppeteer', sdk: '@onkernel/sdk' };

/** The engine's URL: the session's `base_url` is `{engine}/browsers/{id}`. */
export function engineUrl(s: Pick<Session, 'base_url'>): string {
  const base = s.base_url ?? '';
  const at = base.lastIndexOf('/browsers/');
  return at > 0 ? base.slice(0, at) : base || 'http://127.0.0.1:8420';
}

function template(kind: SnippetKind, s: Pick<Session, 'session_id' | 'base_url'>, cdp: string): string {
  switch (kind) {
    case 'playwright':
      return `import { chromium } from 'playwright';

const browser = await chromium.connectOverCDP('${cdp}');
const context = browser.contexts()[0];
const page = context.pages()[0] ?? (await context.newPage());
console.log(await page.title());
await browser.close(); // disconnects; the session keeps running`;
    case 'puppeteer':
      return `import puppeteer from 'puppeteer-core';

const browser = await puppeteer.connect({ browserWSEndpoint: '${cdp}' });
const [page] = await browser.pages();
console.log(await page.title());
await browser.disconnect(); // the session keeps running`;
    case 'sdk':
      return `import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright';

const kernel = new Kernel({ baseURL: '${engineUrl(s)}', apiKey: process.env.KERNEL_API_KEY });
const session = await kernel.browsers.retrieve('${s.session_id}');
const browser = await chromium.connectOverCDP(session.cdp_ws_url);
console.log(await browser.contexts()[0].pages()[0]?.title());`;
  }
}

/** `{ copy, shown }`: the snippet with the session's token, and with it redacted. */
export function connectSnippet(kind: SnippetKind, s: Pick<Session, 'session_id' | 'base_url' | 'cdp_ws_url'>): { copy: string; shown: string } {
  return { copy: template(kind, s, s.cdp_ws_url), shown: template(kind, s, redactJwt(s.cdp_ws_url)) };
}
