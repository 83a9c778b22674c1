/** How a session reads for people (`browsers create` and `get`); --json prints the API's object as it is. */
import { printFields } from '../../output.js';

export interface BrowserLike {
  session_id: string;
  name?: string;
  headless?: boolean;
  stealth?: boolean;
  created_at?: string;
  deleted_at?: string;
  timeout_seconds?: number;
  cdp_ws_url?: string;
  webdriver_ws_url?: string;
  browser_live_view_url?: string;
  profile?: { name?: string | null; id?: string } | null;
  pool?: { name?: string | null } | null;
}

export function showBrowser(b: BrowserLike): void {
  printFields([
    ['session_id', b.session_id],
    ['name', b.name],
    ['headless', b.headless],
    ['stealth', b.stealth],
    ['created_at', b.created_at],
    ['deleted_at', b.deleted_at],
    ['timeout_seconds', b.timeout_seconds],
    ['profile', b.profile?.name ?? b.profile?.id],
    ['pool', b.pool?.name],
    ['cdp_ws_url', b.cdp_ws_url],
    ['webdriver_ws_url', b.webdriver_ws_url],
    ['live_view_url', b.browser_live_view_url],
  ]);
}
