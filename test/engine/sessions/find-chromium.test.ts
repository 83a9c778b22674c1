/** Browser discovery order on Linux, macOS and Windows, with an injected `exists`. */
import { describe, expect, it } from 'vitest';
import { findChromium, chromiumCandidates } from '../../../src/engine/runtime/chromium/find-chromium.js';
import { chromiumArgs, regularUserAgent } from '../../../src/engine/runtime/chromium/chromium-flags.js';

const only =
  (...present: string[]) =>
  (p: string) =>
    present.includes(p);

describe('findChromium', () => {
  it('prefers the configured path, then BROWSERDECK_CHROMIUM, then well-known paths', () => {
    const env = { BROWSERDECK_CHROMIUM: '/env/chrome', PATH: '/usr/bin' };
    expect(findChromium({ configured: '/cfg/chrome', env, platform: 'linux', exists: only() })).toBe('/cfg/chrome');
    expect(findChromium({ env, platform: 'linux', exists: only('/usr/bin/chromium') })).toBe('/env/chrome');
    expect(findChromium({ env: { PATH: '/usr/bin' }, platform: 'linux', exists: only('/usr/bin/google-chrome', '/usr/bin/chromium') })).toBe(
      '/usr/bin/chromium',
    );
    expect(findChromium({ env: { PATH: '/usr/bin' }, platform: 'linux', exists: only('/usr/bin/google-chrome-stable', '/usr/bin/microsoft-edge') })).toBe(
      '/usr/bin/google-chrome-stable',
    );
    expect(findChromium({ env: { PATH: '/home/u/bin' }, platform: 'linux', exists: only('/home/u/bin/chromium') })).toBe('/home/u/bin/chromium');
    expect(findChromium({ env: {}, platform: 'linux', exists: only() })).toBeUndefined();
  });

  it('uses the Debian binary behind the /usr/bin/chromium wrapper when present', () => {
    expect(findChromium({ env: {}, platform: 'linux', exists: only('/usr/lib/chromium/chromium', '/usr/bin/chromium') })).toBe('/usr/lib/chromium/chromium');
  });

  it('knows the macOS application bundles, Chromium first, then Chrome, then Edge', () => {
    expect(
      findChromium({
        env: { HOME: '/Users/u' },
        platform: 'darwin',
        exists: only('/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
      }),
    ).toBe('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(chromiumCandidates('darwin', { HOME: '/Users/u' })).toContain('/Users/u/Applications/Chromium.app/Contents/MacOS/Chromium');
  });

  it('knows the Windows install locations (per-user and Program Files)', () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', PROGRAMFILES: 'C:\\Program Files', 'PROGRAMFILES(X86)': 'C:\\Program Files (x86)' };
    expect(findChromium({ env, platform: 'win32', exists: only('C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe') })).toBe(
      'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
    );
    expect(
      findChromium({
        env,
        platform: 'win32',
        exists: only('C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe', 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'),
      }),
    ).toBe('C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe');
  });
});

describe('chromiumArgs', () => {
  it('builds a loopback-only, no-network command line with the session options', () => {
    const args = chromiumArgs({
      userDataDir: '/d/u',
      headless: true,
      viewport: { width: 800, height: 600 },
      kiosk: true,
      stealth: true,
      userAgent: regularUserAgent('156', 'linux'),
      startUrl: 'https://a.test/',
      runningAsRoot: true,
    });
    expect(args).toEqual(
      expect.arrayContaining([
        '--remote-debugging-port=0',
        '--remote-debugging-address=127.0.0.1',
        '--user-data-dir=/d/u',
        '--headless=new',
        '--screen-info={800x600}',
        '--no-sandbox',
        '--kiosk',
        '--window-size=800,600',
      ]),
    );
    expect(args).toEqual(
      expect.arrayContaining([
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-blink-features=AutomationControlled',
      ]),
    );
    expect(args.find((a) => a.startsWith('--user-agent='))).toBe(
      '--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    );
    expect(args.at(-1)).toBe('https://a.test/');
    // No "unsupported flag" infobar above the first tab (it would shrink the page).
    expect(args).toContain('--test-type');
    // Headless windows are sized viewport + the learned emulated frame; headful ones are not.
    const framed = { userDataDir: '/d/u', viewport: { width: 800, height: 600 }, windowFrame: { width: 0, height: 87 } };
    expect(chromiumArgs({ ...framed, headless: true })).toContain('--window-size=800,687');
    expect(chromiumArgs({ ...framed, headless: true })).toContain('--screen-info={800x600}');
    expect(chromiumArgs({ ...framed, headless: false })).toContain('--window-size=800,600');
    const plain = chromiumArgs({ userDataDir: '/d/u', headless: false, viewport: { width: 800, height: 600 } });
    expect(plain).not.toContain('--headless=new');
    expect(plain).not.toContain('--no-sandbox');
    expect(plain.at(-1)).toBe('about:blank');
  });
});
