/**
 * The command line of a session's Chromium: loopback-only DevTools on a free port, its own
 * user-data-dir, no outside network chatter (no component updates, sync or first-run
 * fetches), the window size from the viewport, and the options a session asked for.
 */
export interface ChromiumLaunchOptions {
  userDataDir: string;
  headless: boolean;
  viewport: { width: number; height: number };
  /**
   * Headless only: the emulated window frame (tab strip, toolbar) learned from an earlier
   * launch, so the first window's page area already equals the viewport.
   */
  windowFrame?: { width: number; height: number };
  kiosk?: boolean;
  stealth?: boolean;
  /** A user agent without "HeadlessChrome" (stealth). */
  userAgent?: string;
  gpu?: boolean;
  startUrl?: string;
  /** Unpacked extension directories to load (each holds a manifest.json). */
  extensionDirs?: string[];
  /** Extra flags from extension points (proxy service, profile hooks). */
  extraArgs?: string[];
  runningAsRoot?: boolean;
  /**
   * Jailed: a fixed DevTools port in the jail's own network namespace, plus the jail's own
   * flags (runtime/sandbox/browser-jail.ts), instead of a random loopback port on the host.
   */
  jailArgs?: string[];
}

/**
 * What an idle session does not need, each measured with `npm run bench:memory -- --mode=flags`
 * (PSS of the whole jail per idle headless browser; docs/bench/results.md, "Memory per session"):
 *  - the omnibox popup's WebUI, which Chromium 156 preloads in a renderer of its own even
 *    headless (chrome://omnibox-popup.top-chrome/): ~30 MB. The native popup serves a headful
 *    window's address bar instead;
 *  - the network service in a utility process of its own: ~13 MB. On Linux that process has no
 *    seccomp filter (Seccomp: 0 in its /proc status; renderers have 2), so running it inside the
 *    browser process gives up crash isolation, not a sandbox; the jail holds both alike;
 *  - crashpad's two handler processes, for crash reports nothing collects: ~1–4 MB.
 * Chromium keeps only the last of a repeated --disable-features, so there is one list.
 * `--enable-features` is one list too: it also turns on WebMCP (Kernel spec §14; Chromium 156
 * has the blink API `document.modelContext` and the CDP `WebMCP` domain behind it, off by default).
 */
const IDLE_MEMORY_FLAGS = [
  '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
  '--enable-features=NetworkServiceInProcess2,WebMCP',
  '--disable-crashpad-for-testing',
];

export function chromiumArgs(o: ChromiumLaunchOptions): string[] {
  const args = [
    ...(o.jailArgs ?? ['--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1']),
    `--user-data-dir=${o.userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-breakpad',
    '--disable-crash-reporter',
    '--disable-domain-reliability',
    '--metrics-recording-only',
    '--password-store=basic',
    '--use-mock-keychain',
    ...IDLE_MEMORY_FLAGS,
    // localStorage reaches disk at once rather than up to seconds after a write (Chromium batches
    // its commits): a profile saved, or a session ended, right after a page wrote keeps the write.
    // A save of a running browser lost one under load (profile-save-running.test.ts).
    '--enable-aggressive-domstorage-flushing',
    // New headless mode counts the emulated browser frame in the window size (see headless-windows.ts).
    `--window-size=${o.viewport.width + (o.headless ? (o.windowFrame?.width ?? 0) : 0)},${o.viewport.height + (o.headless ? (o.windowFrame?.height ?? 0) : 0)}`,
    '--window-position=0,0',
  ];
  // --test-type (as chromedriver passes) hides the "unsupported command-line flag" infobar that
  // --no-sandbox would put above the first tab, shrinking its page by ~56 px.
  if (o.runningAsRoot) args.push('--no-sandbox', '--test-type');
  // Headless Chromium reports an 800x600 screen unless told otherwise; match the viewport like Xvfb does.
  if (o.headless) args.push('--headless=new', `--screen-info={${o.viewport.width}x${o.viewport.height}}`);
  if (!o.gpu) args.push('--disable-gpu');
  else args.push('--ignore-gpu-blocklist', '--enable-gpu-rasterization');
  if (o.kiosk) args.push('--kiosk');
  // Note: a headful browser in the jail (its own sandbox on) reports navigator.webdriver false,
  // like a person's Chrome; --enable-automation would add an infobar that shrinks the page.
  if (o.stealth) {
    // navigator.webdriver stays false and the UA does not announce a headless browser.
    args.push('--disable-blink-features=AutomationControlled');
    if (o.userAgent) args.push(`--user-agent=${o.userAgent}`);
  }
  if (o.extensionDirs?.length) args.push(...extensionArgs(o.extensionDirs));
  if (o.extraArgs) args.push(...o.extraArgs);
  args.push(o.startUrl ?? 'about:blank');
  return args;
}

/** The UA a regular (headful) build of this Chromium major version sends. */
export function regularUserAgent(major: string, platform: NodeJS.Platform = process.platform): string {
  const os = platform === 'darwin' ? 'Macintosh; Intel Mac OS X 10_15_7' : platform === 'win32' ? 'Windows NT 10.0; Win64; x64' : 'X11; Linux x86_64';
  return `Mozilla/5.0 (${os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

/**
 * Loads unpacked extensions and only those (no component or default extensions sneak in).
 * The flags take comma-separated lists, so a path with a comma cannot be expressed.
 */
export function extensionArgs(dirs: string[]): string[] {
  const bad = dirs.find((d) => d.includes(','));
  if (bad) throw new Error(`extension directory '${bad}' contains a comma, which Chromium's --load-extension cannot express`);
  const list = dirs.join(',');
  return [`--load-extension=${list}`, `--disable-extensions-except=${list}`];
}
