/**
 * Session-scoped URLs. Session objects carry a short-lived JWT (`?jwt=` in `cdp_ws_url`,
 * `browser_live_view_url`), and every `/browsers/{id}/…` route accepts it, so panes may load
 * live view, replays or downloads straight from the engine without the API key.
 */
import type { Session } from '../../../shared/wire/sessions';
import type { UpgradePath } from '../../../shared/wire/routes/upgrade-table';
import { buildPath, type ApiRoute, type PathParams } from '../transport/api-client';

/** A GET route under a session's `base_url` (`{engine}/browsers/{id}`): what a browser element may load with the JWT. */
export type SessionGetRoute = Extract<ApiRoute, `GET /browsers/:id/${string}`>;
const SESSION_PREFIX = 'GET /browsers/:id';

export function sessionJwt(s: Session): string | undefined {
  if (s.jwt) return s.jwt;
  try {
    return new URL(s.cdp_ws_url).searchParams.get('jwt') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * `{base_url}/{sub}?jwt=…&…query` for a route of the table, its params but the session's own
 * substituted — e.g. `sessionUrl(s, 'GET /browsers/:id/replays/:replay_id', { replay_id })`.
 */
export function sessionUrl<R extends SessionGetRoute>(
  s: Session,
  route: R,
  params: Omit<PathParams<R>, 'id'>,
  query: Record<string, string> = {},
): string | undefined {
  return sessionSubUrl(s, buildPath(route.slice(SESSION_PREFIX.length), params), query);
}

/** A WebSocket upgrade of a session, from the upgrade table (`shared/wire/routes/upgrade-table.ts`). */
export type SessionUpgrade = Extract<UpgradePath, `/browsers/:id/${string}`>;

/**
 * The `ws://…` form for an upgrade of the table, its params but the session's own substituted —
 * e.g. `sessionWsUrl(s, '/browsers/:id/process/:process_id/attach', { process_id })`.
 */
export function sessionWsUrl<R extends SessionUpgrade>(s: Session, route: R, params: Omit<PathParams<`GET ${R}`>, 'id'>): string | undefined {
  return sessionSubUrl(s, buildPath(route.slice('/browsers/:id'.length), params))?.replace(/^http/, 'ws');
}

/** `{base_url}/{sub}?jwt=…&…query`: the two helpers above build `sub` from a table entry. */
function sessionSubUrl(s: Session, sub: string, query: Record<string, string> = {}): string | undefined {
  const jwt = sessionJwt(s);
  if (!s.base_url || !jwt) return undefined;
  const u = new URL(`${s.base_url.replace(/\/+$/, '')}/${sub.replace(/^\/+/, '')}`);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  u.searchParams.set('jwt', jwt);
  return u.toString();
}

/** For display: the URL with its token replaced, so screenshots and copy/paste don't leak it. */
export function redactJwt(url: string | undefined): string {
  if (!url) return '—';
  return url.replace(/([?&]jwt=)[^&]+/, '$1…');
}
