/**
 * Security restrictions of the desktop app, as plain functions over the few Electron
 * surfaces they touch (so they are tested with fakes): sandboxed, context-isolated windows;
 * no navigation away from the app (http(s) links open in the OS browser instead); no new
 * windows or <webview>s; every permission request and check denied; and a CSP header on
 * everything the app's own session loads over http(s) (file:// pages use the CSP meta tag
 * of index.html).
 */

export const secureWebPreferences = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

/**
 * Script and style only from the app; network to any engine (local or remote connections,
 * session live view/JWT URLs); frames and media from engines for live view and replays.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self' ws: wss: http: https:",
  "frame-src 'self' http: https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

interface NavEvent {
  preventDefault(): void;
}

/** The parts of WebContents the restrictions use. */
export interface GuardedContents {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: NavEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: NavEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
}

export interface GuardedSession {
  setPermissionRequestHandler(
    handler: (wc: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl?: string }) => void,
  ): void;
  setPermissionCheckHandler(handler: (wc: unknown, permission: string, requestingOrigin: string) => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void,
    ): void;
  };
}

/** Locks navigation and window creation of one WebContents. */
export function guardContents(contents: GuardedContents, opts: { isAppUrl: (url: string) => boolean; openExternal: (url: string) => void }): void {
  const onNavigate = (event: NavEvent, url: string): void => {
    if (opts.isAppUrl(url)) return;
    event.preventDefault();
    if (isHttpUrl(url)) opts.openExternal(url);
  };
  contents.on('will-navigate', onNavigate);
  contents.on('will-redirect', onNavigate);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isHttpUrl(url)) opts.openExternal(url);
    return { action: 'deny' };
  });
}

/** The only permission granted, and only to the app's own pages: the "copy key" buttons. */
export const ALLOWED_PERMISSIONS: readonly string[] = ['clipboard-sanitized-write'];

/** Denies permissions (but clipboard writes by the app) and sets the CSP header on the app's own pages served over http(s). */
export function guardSession(session: GuardedSession, opts: { isAppUrl: (url: string) => boolean }): void {
  session.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(ALLOWED_PERMISSIONS.includes(permission) && !!details?.requestingUrl && opts.isAppUrl(details.requestingUrl)),
  );
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!opts.isAppUrl(details.url)) return callback({});
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
}
