/** Secrets in URLs (session JWTs, tokens, keys) never reach a log line or the audit log. */
const SECRET_PARAMS = /^(jwt|token|access_token|api_key|apikey|key|password|secret|handoff_code)$/i;

/**
 * Pages that carry their token as the first path segment (the DevTools frontend's and the trace
 * viewer's files: their relative asset and WebSocket URLs cannot carry a query).
 */
const TOKEN_PATHS = /^(\/(?:devtools-frontend|trace-viewer)\/)[^/?#]+/;

export function redactUrl(url: string): string {
  url = url.replace(TOKEN_PATHS, '$1REDACTED');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${pair.slice(0, eq)}=REDACTED` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
