/**
 * The display of a session's browser (Xvfb, headful on Linux) and each launch of the browser (the first, a crash restart, an extension reload, a profile
 * save's restart): its command line from the session's options and current state, in its jail or
 * on the host, and its first setup as soon as its control connection opens (downloads into the
 * session's filesystem; headless: every window fitted to the viewport).
 */
import fs from 'node:fs/promises';
import { launchChromium, type LaunchedBrowser } from '../chromium/launch-chromium.js';
import type { StartProcess } from '../chromium/started-process.js';
import { needsXvfb, startXvfb, type XvfbServer } from '../chromium/xvfb.js';
import type { CdpConnection } from '../chromium/cdp-connection.js';
import { chromiumArgs } from '../chromium/chromium-flags.js';
import { HeadlessWindows, frameHint } from '../chromium/headless-windows.js';
import type { SessionJail } from '../sandbox/session-jail.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import type { RuntimeSpec } from './running-session.js';
import type { SessionDirs, Viewport } from './session-handle.js';
import type { SessionScope } from './session-scope.js';
import { shortTmpLink } from './short-tmp-link.js';

const MAX_TMPDIR_FOR_SOCKET = 60;

/** What a launch reads of its session, as it is at that moment. */
export interface LaunchState {
  spec: RuntimeSpec;
  dirs: SessionDirs;
  /** Headless: the current viewport (a restart keeps a PATCHed one). */
  viewport: Viewport;
  /** A deferred start_url not opened yet: the launch starts on about:blank. */
  startUrlPending: boolean;
  extensionDirs: string[];
  extensionsDir: string;
  jail?: SessionJail;
  display?: string;
  groups: JailGroups;
  /** The first launch runs within the create's deadline; a restart gets one of its own. */
  signal: AbortSignal;
}

export class SessionBrowserLaunch {
  /** Headless only: keeps every window's page area at the viewport (per launched browser). */
  private windows?: HeadlessWindows;
  private tmpLink?: string;

  constructor(
    scope: SessionScope,
    private readonly viewport: () => Viewport,
    /** Who forks the browser (the engine's launch helper, host-commands.ts); this process when unset. */
    private readonly start?: StartProcess,
  ) {
    // Owned before anything of the session is made: the link goes last, once no browser uses it.
    scope.defer('tmp link', async () => {
      if (this.tmpLink) await fs.rm(this.tmpLink, { force: true });
    });
  }

  private frameKey(spec: RuntimeSpec): string {
    return `${spec.executable}|kiosk=${Boolean(spec.options.kiosk_mode)}`;
  }

  async launch(s: LaunchState): Promise<LaunchedBrowser> {
    const o = s.spec.options;
    const args = chromiumArgs({
      userDataDir: s.dirs.userData,
      headless: o.headless,
      // Headless: the current viewport (a restart keeps a PATCHed one); headful: the X screen.
      viewport: o.headless ? s.viewport : o.viewport,
      windowFrame: o.headless ? frameHint(this.frameKey(s.spec)) : undefined,
      kiosk: o.kiosk_mode,
      stealth: o.stealth,
      userAgent: s.spec.userAgent,
      gpu: o.gpu,
      startUrl: s.startUrlPending ? undefined : o.start_url,
      extensionDirs: s.extensionDirs,
      extraArgs: s.spec.extraArgs,
      runningAsRoot: process.getuid?.() === 0,
      ...s.jail?.chromiumOptions({ extensionDirs: s.extensionDirs, extensionsDir: s.extensionsDir, extraArgs: s.spec.extraArgs }),
    });
    const onOutput = (c: string) => s.spec.serviceLog?.('browser', c);
    // Sent as soon as the browser's control connection opens, beside the launch's own
    // Browser.getVersion: their round trips overlap it (launch-chromium.ts).
    const onConnected = (control: CdpConnection) => this.setUp(control, s);
    let b: LaunchedBrowser;
    if (s.jail) {
      b = await s.jail.launch({
        executable: s.spec.executable,
        args,
        extensionsDir: s.extensionsDir,
        display: s.display,
        onOutput,
        signal: s.signal,
        groups: s.groups,
        onConnected,
        start: this.start,
      });
    } else {
      const env: NodeJS.ProcessEnv = { ...s.spec.env, TMPDIR: await this.tmpDir(s.dirs.tmp, s.spec.id) };
      if (s.display) env.DISPLAY = s.display;
      b = await launchChromium({ executable: s.spec.executable, args, env, onOutput, signal: s.signal, onConnected, start: this.start });
    }
    s.spec.serviceLog?.('session', `browser started (pid ${b.pid}, ${b.version.product})\n`);
    return b;
  }

  /** Headful on Linux: the X server the browser draws on (in a helper jail when jailed), stopped when the scope closes. */
  async startDisplay(
    scope: SessionScope,
    s: Omit<LaunchState, 'display' | 'startUrlPending' | 'extensionDirs' | 'extensionsDir'>,
  ): Promise<XvfbServer | undefined> {
    if (!needsXvfb(s.spec.options.headless, s.spec.env)) return undefined;
    const size = { width: s.viewport.width, height: s.viewport.height };
    const onOutput = (c: string) => s.spec.serviceLog?.('display', c);
    const xvfb = s.jail
      ? await s.jail.startXvfb(size, onOutput, s.signal, s.groups)
      : await startXvfb({ ...size, marker: s.spec.sessionDir, onOutput, signal: s.signal });
    return scope.own(xvfb, (x) => x.stop(), 'display', { timeoutMs: Infinity });
  }

  /** Headless: fits every window to the current viewport (after a PATCH). */
  resize(): Promise<void> | undefined {
    return this.windows?.resize();
  }

  stop(): void {
    this.windows?.stop();
  }

  /** Downloads into the session's filesystem; headless: the window fitted to the viewport. Failures only cost those. */
  private async setUp(control: CdpConnection, s: LaunchState): Promise<void> {
    // Downloads land in the session's filesystem, where /fs can read them.
    const downloads = control
      .send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: s.jail ? s.jail.browserPath(s.dirs.downloads) : s.dirs.downloads,
        eventsEnabled: true,
      })
      .catch(() => {});
    if (s.spec.options.headless) {
      this.windows?.stop();
      this.windows = new HeadlessWindows(control, this.viewport, this.frameKey(s.spec));
      // Ready means the page area already equals the viewport; a failure here only costs the fit.
      await this.windows.start().catch((err) => s.spec.serviceLog?.('session', `could not fit the window to the viewport: ${(err as Error).message}\n`));
    }
    // Sent together with the window setup (one round trip less before ready).
    await downloads;
  }

  /** An unjailed browser's TMPDIR: a short link to the session's when its path is too long for a socket name. */
  private async tmpDir(tmp: string, id: string): Promise<string> {
    if (tmp.length <= MAX_TMPDIR_FOR_SOCKET) return tmp;
    const link = shortTmpLink(id);
    if (!link) return tmp;
    if (!this.tmpLink) {
      await fs.rm(link, { force: true });
      await fs.symlink(tmp, link);
      this.tmpLink = link;
    }
    return link;
  }
}
