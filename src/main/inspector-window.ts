/**
 * Native windows for a session's inspection tools (issue 17): DevTools on a tab and the
 * Playwright trace viewer. The renderer asks with a link the engine handed out; main opens it
 * only when it is one of those two pages on the engine the app is connected to, so a
 * compromised renderer cannot make main open an arbitrary page. Electron itself arrives as the
 * injected `openWindow` (index.ts: a sandboxed BrowserWindow in its own partition, no preload).
 */

export interface InspectorWindowDeps {
  /** The active connection's engine URL. */
  engineUrl: () => Promise<string>;
  openWindow: (url: string, title: string) => void;
}

/** The engine paths that serve an inspection tool behind a token (api/session-devtools.ts, api/session-trace.ts). */
const TOOL_PATH = /^\/(devtools-frontend|trace-viewer)\/[\w.-]+\/[\w./-]+$/;

/** Whether `url` is an inspection tool page of the engine at `engineUrl`. */
export function isInspectorUrl(url: string, engineUrl: string): boolean {
  let u: URL;
  let engine: URL;
  try {
    u = new URL(url);
    engine = new URL(engineUrl);
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === engine.origin && !u.username && !u.password && TOOL_PATH.test(u.pathname);
}

export function createInspectorOpener(d: InspectorWindowDeps): (args: { url: string; title: string }) => Promise<null> {
  return async ({ url, title }) => {
    if (!isInspectorUrl(url, await d.engineUrl())) throw new Error('only DevTools and trace viewer pages of the connected engine open in an inspector window');
    d.openWindow(url, title.slice(0, 200));
    return null;
  };
}
