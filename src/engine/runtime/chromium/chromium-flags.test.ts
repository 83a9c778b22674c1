import { describe, expect, it } from 'vitest';
import { chromiumArgs, extensionArgs, regularUserAgent } from './chromium-flags.js';

const base = { userDataDir: '/data/s1', headless: true, viewport: { width: 1280, height: 720 } };

describe('chromiumArgs', () => {
  it('binds DevTools to loopback on a random port unless jailed, and ends with the start URL', () => {
    const args = chromiumArgs(base);
    expect(args.slice(0, 3)).toEqual(['--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1', '--user-data-dir=/data/s1']);
    expect(args.at(-1)).toBe('about:blank');
    const jailed = chromiumArgs({ ...base, jailArgs: ['--remote-debugging-port=9222'], startUrl: 'https://example.com' });
    expect(jailed).not.toContain('--remote-debugging-address=127.0.0.1');
    expect(jailed[0]).toBe('--remote-debugging-port=9222');
    expect(jailed.at(-1)).toBe('https://example.com');
  });

  it('adds the headless window frame to the window size, and the screen size', () => {
    const args = chromiumArgs({ ...base, windowFrame: { width: 0, height: 87 } });
    expect(args).toContain('--window-size=1280,807');
    expect(args).toContain('--headless=new');
    expect(args).toContain('--screen-info={1280x720}');
    const headful = chromiumArgs({ ...base, headless: false, windowFrame: { width: 0, height: 87 } });
    expect(headful).toContain('--window-size=1280,720');
    expect(headful.some((a) => a.startsWith('--headless'))).toBe(false);
  });

  it('turns WebMCP on (Kernel spec §14) in its one --enable-features list', () => {
    const enabled = chromiumArgs(base).filter((a) => a.startsWith('--enable-features='));
    expect(enabled).toHaveLength(1);
    expect(enabled[0].split('=')[1].split(',')).toContain('WebMCP');
  });

  it('switches GPU, kiosk, stealth and root flags by option', () => {
    expect(chromiumArgs(base)).toContain('--disable-gpu');
    const all = chromiumArgs({ ...base, gpu: true, kiosk: true, stealth: true, userAgent: 'UA', runningAsRoot: true, extraArgs: ['--x'] });
    expect(all).not.toContain('--disable-gpu');
    expect(all).toEqual(
      expect.arrayContaining([
        '--enable-gpu-rasterization',
        '--kiosk',
        '--disable-blink-features=AutomationControlled',
        '--user-agent=UA',
        '--no-sandbox',
        '--test-type',
        '--x',
      ]),
    );
    expect(chromiumArgs({ ...base, userAgent: 'UA' })).not.toContain('--user-agent=UA');
  });
});

describe('extensionArgs and regularUserAgent', () => {
  it('loads only the given extensions and refuses a path with a comma', () => {
    expect(extensionArgs(['/e/a', '/e/b'])).toEqual(['--load-extension=/e/a,/e/b', '--disable-extensions-except=/e/a,/e/b']);
    expect(() => extensionArgs(['/e/a,b'])).toThrow(/contains a comma/);
  });

  it('names the platform and major version without "Headless"', () => {
    expect(regularUserAgent('131', 'linux')).toBe('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36');
    expect(regularUserAgent('131', 'darwin')).toContain('Macintosh');
    expect(regularUserAgent('131', 'win32')).toContain('Windows NT 10.0');
  });
});
