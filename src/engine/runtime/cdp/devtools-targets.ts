/**
 * DevTools HTTP discovery answers (`/json/list`, `/json/new`) as a client outside the engine
 * must see them: Chromium names its own address (`ws://127.0.0.1:<port>/devtools/page/<id>`,
 * unreachable from outside and, for a jailed browser, not even a port), so every target's
 * `webSocketDebuggerUrl` and `devtoolsFrontendUrl` is rewritten to the engine's per-target
 * CDP route, which carries the session's credentials and is proxied to that target.
 */

export interface DevtoolsTarget {
  id: string;
  type?: string;
  url?: string;
  title?: string;
  webSocketDebuggerUrl?: string;
  devtoolsFrontendUrl?: string;
  [k: string]: unknown;
}

/** Target ids Chromium hands out are hex tokens; anything else cannot name a target. */
export const TARGET_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * `wsUrlOf(targetId)` is the engine's public WebSocket URL of that target. A target without a
 * `webSocketDebuggerUrl` (one a client is already attached to) is left without one, as Chromium
 * does. The frontend URL keeps Chromium's frontend (hosted, matching its revision) and points its
 * `ws=`/`wss=` parameter at the engine; the query of the engine URL rides inside that parameter.
 */
export function rewriteTarget(t: DevtoolsTarget, wsUrlOf: (targetId: string) => string): DevtoolsTarget {
  const out: DevtoolsTarget = { ...t };
  if (typeof t.webSocketDebuggerUrl !== 'string') return out;
  const ws = wsUrlOf(t.id);
  out.webSocketDebuggerUrl = ws;
  if (typeof t.devtoolsFrontendUrl === 'string') out.devtoolsFrontendUrl = frontendUrl(t.devtoolsFrontendUrl, ws);
  return out;
}

function frontendUrl(chromiumUrl: string, ws: string): string {
  const q = chromiumUrl.indexOf('?');
  const base = q < 0 ? chromiumUrl : chromiumUrl.slice(0, q);
  const secure = ws.startsWith('wss:');
  const param = secure ? 'wss' : 'ws';
  return `${base}?${param}=${encodeURIComponent(ws.replace(/^wss?:\/\//, ''))}`;
}

/**
 * The page URL of a `/json/new?<url>` request. Chromium takes the whole query as the URL; a
 * client that authenticates with the session token adds `jwt=<token>` to that query (before or
 * after the URL), which is removed here — only that exact parameter, so a URL's own `jwt=` with
 * another value survives.
 */
export function newTargetQuery(rawQuery: string, token: string | undefined): string {
  if (!token) return rawQuery;
  const param = `jwt=${encodeURIComponent(token)}`;
  for (const p of [param, `jwt=${token}`]) {
    if (rawQuery === p) return '';
    if (rawQuery.startsWith(`${p}&`)) return rawQuery.slice(p.length + 1);
    if (rawQuery.endsWith(`&${p}`)) return rawQuery.slice(0, -(p.length + 1));
  }
  return rawQuery;
}
