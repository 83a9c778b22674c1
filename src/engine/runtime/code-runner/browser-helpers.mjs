/**
 * The browser helpers of the REPL (spec §9) — `gotoUrl`, `click`, `fillInput`,
 * `accessibilitySnapshot`, `listTabs`, `newTab`, `switchTab`, `closeTab`, `cdp` — over one
 * Playwright connection, acting on a "current tab" the caller keeps. The REPL keeps one for the
 * whole process (repl-child.mjs); each CDP-backed WebMCP custom tool invocation gets its own,
 * bound to the tab it was invoked on (webmcp-tool-child.mjs), so concurrent invocations never
 * move each other's `page`.
 *
 * Plain JavaScript: it runs in the jailed children like the scripts that import it.
 */
import { loadPlaywright } from './load-playwright.mjs';

/**
 * The child's one Playwright connection to its session's browser. `init` is the engine's init
 * job (`cdpUrl`, `playwright`, `forward?`: in the jail, the CDP socket to forward to a local
 * port first). `onLost` runs when the connected browser goes away (its tabs are gone with it).
 */
export function browserConnection(init, onLost = () => {}) {
  /** @type {Promise<any> | undefined} the connection being made or made */
  let connection;
  let connected;
  let playwright;
  const self = {
    /** The connected Playwright Browser, if any. */
    get browser() {
      return connected;
    },
    get playwright() {
      return playwright;
    },
    connect() {
      connection ??= (async () => {
        if (init.forward) {
          const { listenForwarder } = await import('../sandbox/cdp-forwarder.mjs');
          (await listenForwarder(init.forward.socket, init.forward.port)).unref();
          init.forward = undefined;
        }
        playwright ??= loadPlaywright(init.playwright, init.codeCache);
        // noDefaults: Playwright's default context otherwise sends `Browser.setDownloadBehavior`
        // browser-wide, moving every later download of the session into Playwright's temp dir
        // instead of /downloads (and it overrides nothing else the user set).
        const b = await playwright.chromium.connectOverCDP(init.cdpUrl, { noDefaults: true });
        b.on('disconnected', () => {
          // An old browser's connection closing late does not wipe a newer one.
          if (connected !== b) return;
          connected = undefined;
          connection = undefined;
          onLost();
        });
        connected = b;
        return b;
      })();
      connection.catch(() => (connection = undefined));
      return connection;
    },
    /** A restarted browser has another address (the engine sends the current one with each call). */
    retarget(cdpUrl) {
      if (!cdpUrl || cdpUrl === init.cdpUrl) return;
      init.cdpUrl = cdpUrl;
      const old = connection;
      connection = undefined;
      connected = undefined;
      onLost();
      void Promise.resolve(old)
        .then((b) => b?.close())
        .catch(() => {});
    },
  };
  return self;
}

const targetIds = new WeakMap();

/** A page's CDP target id (asked once per page). */
export async function targetIdOf(p) {
  if (!targetIds.has(p)) {
    const s = await p.context().newCDPSession(p);
    try {
      targetIds.set(p, (await s.send('Target.getTargetInfo')).targetInfo.targetId);
    } finally {
      await s.detach().catch(() => {});
    }
  }
  return targetIds.get(p);
}

export function allPages(b) {
  return b.contexts().flatMap((c) => c.pages());
}

export async function pageById(b, targetId) {
  for (const p of allPages(b)) if ((await targetIdOf(p).catch(() => '')) === targetId) return p;
  return undefined;
}

/**
 * The helpers over `state`: `connect()` answers the connected Playwright Browser; `current` is
 * the tab `page` stands for (read and set by the helpers: newTab and switchTab move it).
 */
export function browserHelpers(state) {
  const currentPage = () => {
    if (!state.current || state.current.isClosed()) throw new Error('no current tab: open one with newTab(url)');
    return state.current;
  };
  const helpers = {
    async gotoUrl(url, options = {}) {
      const r = await currentPage().goto(url, options);
      return { url: currentPage().url(), status: r?.status() ?? null };
    },
    click: (selector, options) => currentPage().click(selector, options),
    fillInput: (selector, value, options) => currentPage().fill(selector, String(value), options),
    accessibilitySnapshot: (selector = ':root') => currentPage().locator(selector).ariaSnapshot(),
    async listTabs() {
      const b = await state.connect();
      return Promise.all(
        allPages(b).map(async (p) => ({ target_id: await targetIdOf(p), url: p.url(), title: await p.title().catch(() => ''), current: p === state.current })),
      );
    },
    async newTab(url) {
      const b = await state.connect();
      state.current = await b.contexts()[0].newPage();
      if (url) await state.current.goto(url);
      return targetIdOf(state.current);
    },
    async switchTab(targetId) {
      const p = await pageById(await state.connect(), targetId);
      if (!p) throw new Error(`no tab with target id ${targetId}`);
      state.current = p;
      await p.bringToFront();
      return targetId;
    },
    async closeTab(targetId) {
      const p = targetId ? await pageById(await state.connect(), targetId) : currentPage();
      if (!p) throw new Error(`no tab with target id ${targetId}`);
      await p.close();
      if (p === state.current) state.current = undefined;
    },
  };
  /** Raw CDP on the current tab; `cdp.browser(...)` on the browser. */
  async function cdp(method, params = {}) {
    const p = currentPage();
    const s = await p.context().newCDPSession(p);
    try {
      return await s.send(method, params);
    } finally {
      await s.detach().catch(() => {});
    }
  }
  cdp.browser = async (method, params = {}) => {
    const s = await (await state.connect()).newBrowserCDPSession();
    try {
      return await s.send(method, params);
    } finally {
      await s.detach().catch(() => {});
    }
  };
  return { ...helpers, cdp };
}
