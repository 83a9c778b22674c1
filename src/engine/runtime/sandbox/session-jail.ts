/**
 * One session's jail on the host side: its private directories (the socket dir shared with the
 * jail helper, the X socket dir, the managed policy dir), its egress proxy on a Unix socket,
 * and how its browser and Xvfb are launched inside (browser-jail.ts, helper-jail.ts).
 * `SessionRuntime` owns one when the engine jails browsers; without it, it launches on the host.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, type LaunchedBrowser, type LaunchSpec } from '../chromium/launch-chromium.js';
import { startXvfb, type XvfbServer } from '../chromium/xvfb.js';
import { inOnlineNetns, onlineNetnsAvailable } from './online-netns.js';
import { startLocalForwarder, type LocalForwarder } from '../proxy-forwarder/local-forwarder.js';
import type { EgressPolicy } from '../proxy-forwarder/egress-policy.js';
import { allowedHosts, type AllowedHosts } from '../proxy-forwarder/allowed-hosts.js';
import { JAIL_EXTENSIONS, JAIL_USER_DATA, browserJailCommand, jailChromiumArgs, jailPathOf, prepareJailRoot } from './browser-jail.js';
import { helperJail } from './helper-jail.js';
import { managedPolicyOf } from './managed-policy.js';
import { jailStart, type JailGroups } from './jail-start.js';
import { INBOUND_SOCKET_NAME } from './jail-helper-launch.js';
import { claimJailUser, commandAs, ensureTraversable, jailUsersOn, own, ownTree, type ClaimedJailUser, type JailUser } from './jail-user.js';

export interface SessionJailConfig {
  bwrap: string;
  /** Host paths masked inside (the engine's data dir). */
  hide: string[];
  policy: EgressPolicy;
  /** The session proxy's forwarder, when it has one; otherwise the session gets a direct one. */
  egress?: LocalForwarder;
  /** `chrome_policy`: written as a managed policy file inside the jail. */
  chromePolicy?: Record<string, unknown>;
  /**
   * CA certificates (base64 DER) the browser trusts besides the system's: its proxies'
   * `ca_bundle`s, written into the same managed policy file as Chromium's `CACertificates`.
   */
  caCertificates?: string[];
  /** `network.allowed_hosts` (validated): in force on the egress before the browser starts. */
  allowedHosts?: readonly string[];
}

/** Flags a proxy adds for an unjailed browser; the jail routes through its own egress instead. */
const PROXY_FLAG = /^--(proxy-server|proxy-bypass-list|webrtc-ip-handling-policy)=/;
/** sun_path holds 108 bytes on Linux including the NUL. */
const MAX_SOCKET_PATH = 100;

/**
 * Whether Chromium's own sandbox starts inside the jail (it needs nested user namespaces):
 * learned at the first jailed launch of this engine process. Where the kernel refuses them, the
 * browser runs with `--no-sandbox` inside the jail — still jailed, but without a renderer
 * sandbox — and says so in that session's log (`/logs/stream?source=supervisor`, service `session`).
 */
let chromiumSandbox: 'unknown' | 'on' | 'off' = 'unknown';

export function chromiumSandboxState(): 'unknown' | 'on' | 'off' {
  return chromiumSandbox;
}

export class SessionJail {
  /**
   * Where the sockets live: the session dir, or a short temp dir when that is too deep for a
   * socket path. Only its `jail/` subdir (the helper's DevTools socket) is writable in the jail;
   * the egress socket sits beside it, out of the jail's reach — a bind source the jail could
   * replace with a symlink would make bwrap mount any host file into the next launch.
   */
  private base?: string;
  /** Where the browser's traffic goes now: the session proxy's forwarder, or the jail's own direct one. */
  private egress?: LocalForwarder;
  /** The jail's own direct forwarder, when it started one. */
  private direct?: LocalForwarder;
  /**
   * The session's egress allowlist: the jail's network namespace has only `lo`, so the egress
   * socket is the browser's one way out, and whichever forwarder serves it enforces this list.
   */
  private allowed: AllowedHosts | null = null;
  /**
   * Listens on the egress socket and hands each connection to the current `egress`: the socket
   * is bound into the running jail by inode, so a claimed standby browser keeps it and only the
   * forwarder behind it changes (useEgress).
   */
  private front?: net.Server;
  /** The session's own host uid when the engine is root (jail-user.ts); released at close. */
  private claim?: ClaimedJailUser;
  /** Whether the session's tree has been given to its jail user (before its first launch). */
  private handedOver = false;

  constructor(
    readonly config: SessionJailConfig,
    private readonly sessionDir: string,
    private readonly dirs: { root: string; userData: string; tmp: string },
    private readonly log: (line: string) => void,
  ) {
    if (config.allowedHosts) this.allowed = allowedHosts(config.allowedHosts);
  }

  /** The X socket dir the jailed Xvfb, the browser and session processes share. */
  get x11Dir(): string {
    return path.join(this.sessionDir, 'x11');
  }

  private get policyDir(): string {
    return path.join(this.sessionDir, 'policies');
  }

  /** Mount points and home in the session root, the socket dir, the egress proxy, the policy file. */
  async prepare(): Promise<void> {
    await prepareJailRoot(this.dirs.root);
    if (jailUsersOn()) {
      this.claim = claimJailUser();
      // bwrap runs as the jail user: the data dir and `sessions` get o+x, the session dir stays root's (0711).
      const sessions = path.dirname(this.sessionDir);
      await ensureTraversable(this.dirs.root, [this.sessionDir, sessions, path.dirname(sessions)]);
      await fs.chmod(this.sessionDir, 0o711);
      // The owner of the session root records the uid (jailUserOf): every jail of the session reads it there.
      await ownTree(this.user, this.dirs.root);
      await own(this.user, this.dirs.userData, this.dirs.tmp);
    }
    let base = this.sessionDir;
    if (Buffer.byteLength(path.join(base, 'jail', INBOUND_SOCKET_NAME)) > MAX_SOCKET_PATH)
      base = await fs.mkdtemp(path.join(os.tmpdir().length <= 48 ? os.tmpdir() : '/tmp', 'bd-jail-'));
    this.base = base;
    await fs.mkdir(this.sockDir, { recursive: true, mode: 0o700 });
    if (base !== this.sessionDir && this.user) await fs.chmod(base, 0o711);
    await own(this.user, this.sockDir);
    if (!this.config.egress) this.direct = await startLocalForwarder({ upstream: null, bypass: [] }, { policy: this.config.policy, log: this.log, tcp: false });
    this.egress = this.config.egress ?? this.direct;
    this.egress?.setAllowedHosts(this.allowed);
    const front = net.createServer((s) => (this.egress ? this.egress.accept(s) : s.destroy()));
    this.front = front;
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.listen(this.egressSocket, () => resolve());
    });
    front.on('error', () => {});
    // The jail's helper connects to it; nobody else may.
    await own(this.user, this.egressSocket);
    if (this.user) await fs.chmod(this.egressSocket, 0o600);
    // Engine-private (the session dir, never the tenant's root): nothing in the jail can swap it.
    const policy = managedPolicyOf(this.config);
    if (policy) {
      await fs.mkdir(this.policyDir, { recursive: true });
      await fs.writeFile(path.join(this.policyDir, 'browserdeck.json'), JSON.stringify(policy));
      await ownTree(this.user, this.policyDir);
    }
  }

  /** The host user every jail of this session runs as; undefined when the engine is not root. */
  get user(): JailUser | undefined {
    return this.claim?.user;
  }

  /**
   * From now on the browser's traffic leaves through `forwarder` (a claimed standby browser's
   * session proxy); the jail's own direct forwarder closes with whatever it carried before.
   */
  async useEgress(forwarder: LocalForwarder): Promise<void> {
    forwarder.setAllowedHosts(this.allowed);
    this.egress = forwarder;
    const direct = this.direct;
    this.direct = undefined;
    await direct?.close();
  }

  /**
   * Replaces the session's egress allowlist (validated entries; null: none) on the running
   * browser's way out: new requests and tunnels are checked against it at once, open tunnels to
   * destinations it no longer allows are closed.
   */
  setAllowedHosts(entries: readonly string[] | null): void {
    this.allowed = entries ? allowedHosts(entries) : null;
    this.egress?.setAllowedHosts(this.allowed);
  }

  /** The helper's socket dir, read-write in the jail. */
  private get sockDir(): string {
    return path.join(this.base!, 'jail');
  }

  /** The engine's egress proxy socket (bound read-only into the jail as a single file). */
  private get egressSocket(): string {
    return path.join(this.base!, 'egress.sock');
  }

  /** The browser's view of a path in the session root (the root is its `/`). */
  browserPath(hostPath: string): string {
    return jailPathOf(hostPath, this.dirs.root, '/');
  }

  /** `groups`: the session's memory and pids groups, which the X server starts in like the browser. */
  startXvfb(size: { width: number; height: number }, onOutput: (chunk: string) => void, signal?: AbortSignal, groups?: JailGroups): Promise<XvfbServer> {
    return fs
      .mkdir(this.x11Dir, { recursive: true, mode: 0o700 })
      .then(() => own(this.user, this.x11Dir))
      .then(() =>
        // Xvfb gets fd 3 besides stdio: the pipe it writes its display number to (xvfb.ts).
        helperJail(this.config.bwrap, { binds: [[this.x11Dir, '/tmp/.X11-unix']], hide: this.config.hide, user: this.user, groups, fds: 4 }),
      )
      .then((jail) => startXvfb({ ...size, marker: this.sessionDir, onOutput, jail, signal }));
  }

  /** What `chromiumArgs` needs to differ for a jailed browser. */
  chromiumOptions(o: { extensionDirs: string[]; extensionsDir: string; extraArgs: string[] }) {
    return {
      userDataDir: JAIL_USER_DATA,
      extensionDirs: o.extensionDirs.map((d) => jailPathOf(d, o.extensionsDir, JAIL_EXTENSIONS)),
      extraArgs: o.extraArgs.filter((a) => !PROXY_FLAG.test(a)),
      // Inside the jail Chromium runs as uid 1000 with its own sandbox on.
      runningAsRoot: false,
      jailArgs: jailChromiumArgs(),
    };
  }

  async launch(o: {
    executable: string;
    args: string[];
    extensionsDir: string;
    display?: string;
    onOutput: (chunk: string) => void;
    signal?: AbortSignal;
    /** The groups the jail starts in (the freezer's, the session's memory and pids groups; jail-start.ts). */
    groups?: JailGroups;
    onConnected?: LaunchSpec['onConnected'];
    start?: LaunchSpec['start'];
  }): Promise<LaunchedBrowser> {
    const args = chromiumSandbox === 'off' ? ['--no-sandbox', '--test-type', ...o.args] : o.args;
    try {
      const b = await this.launchOnce({ ...o, args });
      if (chromiumSandbox === 'unknown') chromiumSandbox = 'on';
      return b;
    } catch (err) {
      if (chromiumSandbox !== 'unknown' || !/No usable sandbox/i.test((err as Error).message)) throw err;
      chromiumSandbox = 'off';
      this.log(
        "Chromium's own sandbox cannot start inside the jail on this kernel (no nested user namespaces): browsers run with --no-sandbox inside the jail",
      );
      return this.launch(o);
    }
  }

  private async launchOnce(o: {
    executable: string;
    args: string[];
    extensionsDir: string;
    display?: string;
    onOutput: (chunk: string) => void;
    signal?: AbortSignal;
    /** The groups the jail starts in (the freezer's, the session's memory and pids groups; jail-start.ts). */
    groups?: JailGroups;
    onConnected?: LaunchSpec['onConnected'];
    start?: LaunchSpec['start'];
  }): Promise<LaunchedBrowser> {
    const sockDir = this.sockDir;
    const devtoolsSocket = path.join(sockDir, INBOUND_SOCKET_NAME);
    // The helper of a previous (crashed) launch left its socket file behind.
    await fs.rm(devtoolsSocket, { force: true });
    if (this.user) {
      // Restored profile, uploaded extensions: written by the engine. The whole user-data tree only
      // before the first launch (no jail of the session can swap a directory under the walk yet);
      // extensions are read-only in every jail, so they are safe to walk at each launch.
      if (!this.handedOver) await ownTree(this.user, this.dirs.userData);
      this.handedOver = true;
      await ownTree(this.user, o.extensionsDir);
    }
    // The browser's network namespace is made before bwrap with an interface besides `lo`, so
    // Chromium takes itself for online (online-netns.ts; root and non-root engines alike).
    const online = await onlineNetnsAvailable();
    const jailed = await browserJailCommand({
      bwrap: this.config.bwrap,
      root: this.dirs.root,
      userData: this.dirs.userData,
      tmp: this.dirs.tmp,
      sockDir,
      egressSocket: this.egressSocket,
      extensionsDir: o.extensionsDir,
      policyDir: managedPolicyOf(this.config) ? this.policyDir : undefined,
      hide: this.config.hide,
      x11Dir: o.display ? this.x11Dir : undefined,
      display: o.display,
      executable: o.executable,
      args: o.args,
      sharedNet: online,
    });
    // bwrap as the session's own uid (setpriv, so the groups below are still joined, and the
    // network namespace made, as root). The first process closes inherited fds and enters the
    // groups before it becomes bwrap, so everything the jail forks is inside.
    const as = commandAs(this.user, jailed.file, jailed.args);
    const cmd = jailStart(o.groups, 3, online ? inOnlineNetns(as) : as);
    return launchChromium({
      executable: cmd.file,
      args: cmd.args,
      env: { PATH: process.env.PATH },
      devtoolsSocket,
      onOutput: o.onOutput,
      signal: o.signal,
      onConnected: o.onConnected,
      start: o.start,
    });
  }

  /** After the browser has stopped: the session's own egress proxy and a socket dir outside the session dir. */
  async close(): Promise<void> {
    // Stop accepting, without waiting for the front's connections: the forwarders own them (the
    // direct one ends its own here, a proxy's at the session's end), and a peer that never closes
    // its end would otherwise hold the session's end, and the engine's stop, forever.
    this.front?.close();
    try {
      await this.direct?.close();
      if (this.base && this.base !== this.sessionDir) await fs.rm(this.base, { recursive: true, force: true });
    } finally {
      // A failed step above must not keep the uid claimed until the engine exits.
      this.claim?.release();
    }
  }
}
