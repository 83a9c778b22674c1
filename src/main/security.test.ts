/** Security restrictions applied to fake WebContents/Session: navigation, windows, permissions, CSP. */
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, guardContents, guardSession, secureWebPreferences, type GuardedContents, type GuardedSession } from './security.js';

const isAppUrl = (url: string): boolean => url.startsWith('file:///app/index.html');

function fakeContents() {
  const on: Record<string, (e: { preventDefault(): void }, url?: string) => void> = {};
  let openHandler: ((d: { url: string }) => { action: string }) | undefined;
  const contents = {
    on: (event: string, fn: (e: { preventDefault(): void }, url?: string) => void) => void (on[event] = fn),
    setWindowOpenHandler: (fn: (d: { url: string }) => { action: string }) => void (openHandler = fn),
  };
  return { contents: contents as unknown as GuardedContents, on, open: (url: string) => openHandler!({ url }) };
}

function nav(fn: (e: { preventDefault(): void }, url?: string) => void, url: string): boolean {
  let prevented = false;
  fn({ preventDefault: () => (prevented = true) }, url);
  return prevented;
}

describe('security restrictions', () => {
  it('keeps sandbox and context isolation on', () => {
    expect(secureWebPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
  });

  it('locks navigation and window creation; http(s) links open in the OS browser', () => {
    const external: string[] = [];
    const f = fakeContents();
    guardContents(f.contents, { isAppUrl, openExternal: (u) => external.push(u) });
    expect(nav(f.on['will-navigate'], 'file:///app/index.html#/sessions')).toBe(false);
    expect(nav(f.on['will-navigate'], 'https://example.com/')).toBe(true);
    expect(nav(f.on['will-redirect'], 'file:///etc/passwd')).toBe(true);
    expect(nav(f.on['will-navigate'], 'javascript:alert(1)')).toBe(true);
    expect(f.open('https://docs.example.com/')).toEqual({ action: 'deny' });
    expect(f.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(nav(f.on['will-attach-webview'], '')).toBe(true);
    expect(external).toEqual(['https://example.com/', 'https://docs.example.com/']);
  });

  it('denies permission requests (but clipboard writes by the app) and sets the CSP on app pages', () => {
    let request: Parameters<GuardedSession['setPermissionRequestHandler']>[0] | undefined;
    let check: Parameters<GuardedSession['setPermissionCheckHandler']>[0] | undefined;
    let headers: Parameters<GuardedSession['webRequest']['onHeadersReceived']>[0] | undefined;
    guardSession(
      {
        setPermissionRequestHandler: (h) => void (request = h),
        setPermissionCheckHandler: (h) => void (check = h),
        webRequest: { onHeadersReceived: (h) => void (headers = h) },
      },
      { isAppUrl },
    );
    const ask = (permission: string, requestingUrl: string): boolean => {
      let granted: boolean | undefined;
      request!(null, permission, (g) => (granted = g), { requestingUrl });
      return granted!;
    };
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'fullscreen']) expect(ask(p, 'file:///app/index.html')).toBe(false);
    expect(ask('clipboard-sanitized-write', 'file:///app/index.html')).toBe(true);
    expect(ask('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(check!(null, 'media', 'file://')).toBe(false);
    let out: { responseHeaders?: Record<string, string[]> } | undefined;
    headers!({ url: 'file:///app/index.html', responseHeaders: { a: ['1'] } }, (r) => (out = r));
    expect(out!.responseHeaders!['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    headers!({ url: 'http://127.0.0.1:1/browsers/x/live', responseHeaders: {} }, (r) => (out = r));
    expect(out).toEqual({});
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
  });
});
