/**
 * The engine's WebSocket upgrade paths, all of them, beside the HTTP route table: CDP, WebDriver
 * BiDi, live view, terminal attach, the DevTools frontend's socket. Not in `/openapi.json` (an
 * upgrade is no operation there); the engine's upgrade router registers each one from here
 * (`src/engine/http/upgrade-router.ts`) and what runs across upgrades (the connection gate, node
 * forwarding, the audit service) reads its facts instead of matching the URL.
 */

/** What the engine does with an upgrade besides its handler. */
export interface UpgradeFacts {
  /** The path param naming the session the socket belongs to: counted against its connections, forwarded to its node. */
  session?: 'id';
  /** The session is named by a tool page's token in the path (`token` param): forwarded to the node running it. */
  forward?: 'devtools-token';
  /** The audit log's `service` for this upgrade. */
  audit: string;
}

export interface UpgradeSpec {
  /** What the socket speaks (for readers; an upgrade has no OpenAPI operation). */
  description: string;
  facts: UpgradeFacts;
}

export type UpgradePathKey = `/${string}`;

function defineUpgrades<const T extends Record<UpgradePathKey, UpgradeSpec>>(upgrades: T): T {
  return upgrades;
}

const SESSION: UpgradeFacts = { session: 'id', audit: 'browsers' };

/** Path templates use `:name` segments, as the HTTP table does. */
export const UPGRADES = defineUpgrades({
  '/browsers/:id/cdp': { description: "The session browser's Chrome DevTools Protocol (`cdp_ws_url`).", facts: SESSION },
  '/browsers/:id/cdp/devtools/page/:targetId': { description: 'CDP of one target, as Chromium serves `/devtools/page/{targetId}`.', facts: SESSION },
  '/browsers/:id/webdriver': { description: 'WebDriver BiDi (`webdriver_ws_url`).', facts: SESSION },
  '/browsers/:id/webdriver/session': { description: 'WebDriver BiDi, for clients that append `/session` to the address.', facts: SESSION },
  '/browsers/:id/live/ws': { description: "The live view's screen and input (`browser_live_view_url`'s page connects here).", facts: SESSION },
  '/browsers/:id/process/:process_id/attach': { description: "A session process's terminal: its PTY's output and input.", facts: SESSION },
  '/devtools-frontend/:token/ws': {
    description: "The DevTools frontend's CDP socket; the token in the path is its credential.",
    facts: { forward: 'devtools-token', audit: 'devtools-frontend' },
  },
});

export type UpgradeTable = typeof UPGRADES;
export type UpgradePath = keyof UpgradeTable;
