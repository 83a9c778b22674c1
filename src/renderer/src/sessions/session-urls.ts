/**
 * Session-scoped URLs. Session objects carry a short-lived JWT (`?jwt=` in `cdp_ws_url`,
 * `browser_live_view_url`), and every `/browsers/{id}/…` route accepts it, so panes may load
 * live view, replays or downloads straight from the engine without the API key.
 */
import type { Session } from '../../../shared/wire/sessions';

export function sessionJwt(s: Session): string | undefined {
  if (s.jwt) return s.jwt;
  try {
    return new URL(s.cdp_ws_url).searchParams.get('jwt') ?? undefined;
  } catch {
    return undefined;
  }
}

/** `{base_url}/{sub}?jwt=…&…query` — e.g. `sessionUrl(s, 'replays/abc')`. */
export function sessionUrl(s: Session, sub: string, query: Record<string, string> = {}): string | undefined {
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
