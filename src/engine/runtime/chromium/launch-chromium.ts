/**
 * Starts one Chromium in its own process group and waits until it is really ready: the
 * DevTools address is read from stderr and a `Browser.getVersion` round trip has been
 * answered over a control connection that the supervisor keeps for the browser's life.
 * A launch that fails, runs out of time or is aborted (its `signal`: the create's deadline or a
 * client that went away) leaves no process behind.
 */
import { spawnDirect, type StartProcess } from './started-process.js';
import { CdpConnection } from './cdp-connection.js';
import { killGroup, isGroupAlive } from './process-group.js';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { devtoolsEndpoint, jailedWsUrl } from './devtools-address.js';

/** Not in fs.constants; the same value on every Linux architecture Node supports. */
const O_PATH = 0o10000000;

export interface LaunchSpec {
  executable: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /**
   * The deadline of whatever asked for this browser (a create, a crash restart): aborting it
   * ends the launch and kills the browser. Without one the launch gets `timeoutMs` (30 s).
   */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Receives Chromium's stderr as it arrives (the session's `browser` supervisor log). */
  onOutput?: (chunk: string) => void;
  /**
   * Set when `executable` is the browser jail (runtime/sandbox/browser-jail.ts): DevTools is
   * reached through this Unix socket once the jail helper reports it is ready.
   */
  devtoolsSocket?: string;
  /**
   * Runs as soon as the control connection is open, beside `Browser.getVersion`: its commands
   * queue behind that one on the browser's busy start-up thread instead of waiting for its answer
   * first (the session's window fit and download setup: ~10 ms of a cold create). The launch is
   * ready once both are done; it handles its own failures (a rejection fails the launch).
   */
  onConnected?: (control: CdpConnection) => Promise<void>;
  /** Who forks the browser: the engine's host command helper (host-commands.ts), else this process. */
  start?: StartProcess;
}

export interface BrowserVersion {
  product: string;
  protocolVersion: string;
  userAgent: string;
  jsVersion: string;
  revision: string;
}

export interface LaunchedBrowser {
  pid: number;
  /** Equals pid: the browser leads its own group. */
  pgid: number;
  /**
   * Internal browser-level CDP address: `ws://127.0.0.1:<port>/devtools/browser/<id>`, or for a
   * jailed browser `ws+unix://<socket>:/devtools/browser/<id>` (see devtools-address.ts).
   */
  wsUrl: string;
  control: CdpConnection;
  version: BrowserVersion;
  /** Resolves when the main process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Why a launch stopped waiting: the same message as ever when its time ran out. */
function abortedLaunch(signal: AbortSignal): Error {
  const reason = signal.reason as { name?: string } | undefined;
  return new Error(reason?.name === 'TimeoutError' ? 'Chromium did not report its DevTools address in time' : 'the browser launch was aborted');
}

/** `p`, or a rejection as soon as `signal` aborts. */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedLaunch(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedLaunch(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** How long an aborted launch waits for a process still being forked, to kill it before answering. */
const LATE_START_WAIT_MS = 5_000;

export async function launchChromium(spec: LaunchSpec): Promise<LaunchedBrowser> {
  const signal = spec.signal ?? AbortSignal.timeout(spec.timeoutMs ?? 30_000);
  if (signal.aborted) throw abortedLaunch(signal);
  const starting = (spec.start ?? spawnDirect)(spec.executable, spec.args, spec.env);
  const child = await unlessAborted(starting, signal).catch(async (err: Error) => {
    // Aborted while it was being forked: the process goes as soon as it is known, and the launch
    // answers once it has (a wedged helper is not waited on past LATE_START_WAIT_MS).
    const gone = starting.then(async (late) => {
      killGroup(late.pid);
      await late.exited;
    });
    await Promise.race([gone.catch(() => {}), new Promise((r) => setTimeout(r, LATE_START_WAIT_MS).unref())]);
    throw err;
  });
  const { pid, exited } = child;
  let stderrTail = '';
  let helperSeen = false;
  let devtools: string | undefined;
  try {
    const wsUrl = await unlessAborted(
      new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: string) => {
          spec.onOutput?.(chunk);
          helperSeen ||= (stderrTail.slice(-40) + chunk).includes('browserdeck-jail: ready');
          stderrTail = (stderrTail + chunk).slice(-4000);
          devtools ??= /DevTools listening on (ws:\/\/\S+)/.exec(stderrTail)?.[1];
          // A jailed browser is reachable only once the helper serves its socket too.
          if (devtools && (helperSeen || !spec.devtoolsSocket)) {
            resolve(spec.devtoolsSocket ? jailedWsUrl(spec.devtoolsSocket, new URL(devtools).pathname) : devtools);
          }
        });
        void exited.then(({ code, signal: sig }) => {
          reject(new Error(`Chromium exited during startup (code ${code}, signal ${sig}): ${stderrTail.trim().split('\n').slice(-3).join(' | ')}`));
        });
      }),
      signal,
    );
    // Keep draining stderr so a chatty browser never blocks on a full pipe.
    child.stderr.removeAllListeners('data');
    if (spec.onOutput) child.stderr.on('data', spec.onOutput);
    child.stderr.resume();
    const pinned = spec.devtoolsSocket ? await unlessAborted(pinSocket(spec.devtoolsSocket), signal) : undefined;
    if (pinned) void exited.then(() => pinned.close().catch(() => {}));
    const address = pinned ? jailedWsUrl(pinned.path, devtoolsEndpoint(wsUrl).path) : wsUrl;
    const control = await unlessAborted(CdpConnection.connect(address), signal);
    const [version] = await unlessAborted(Promise.all([control.send('Browser.getVersion'), spec.onConnected?.(control)]), signal).catch((err: Error) => {
      control.close();
      throw err;
    });
    return { pid, pgid: pid, wsUrl: address, control, version, exited };
  } catch (err) {
    killGroup(pid);
    await exited;
    if (isGroupAlive(pid)) killGroup(pid);
    throw err;
  }
}

/**
 * Ends a browser: `Browser.close` first (it leaves no temp files behind), then SIGKILL to
 * the whole group after a short grace so no helper process survives.
 */
export async function stopChromium(b: LaunchedBrowser, graceMs = 2000): Promise<boolean> {
  let clean = false;
  if (b.control.isOpen)
    clean = await b.control.send('Browser.close', undefined, { timeoutMs: graceMs }).then(
      () => true,
      () => false,
    );
  b.control.close();
  const exitedInTime = await Promise.race([b.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))]);
  killGroup(b.pgid);
  await b.exited;
  return clean && exitedInTime;
}

/**
 * The jail helper's socket, held open by descriptor (O_PATH, not following a link) for as long
 * as the browser runs: every DevTools connection of the engine goes to `/proc/<pid>/fd/<fd>`,
 * that very socket, so a process in the jail replacing the name in its writable socket dir with a
 * link to some host socket cannot redirect the engine there.
 */
async function pinSocket(socketPath: string): Promise<{ close(): Promise<void>; path: string }> {
  // The jail exists only on Linux; elsewhere there is nothing to pin.
  if (process.platform !== 'linux') return { close: async () => {}, path: socketPath };
  const handle = await fsp.open(socketPath, O_PATH | fs.constants.O_NOFOLLOW);
  if (!(await handle.stat()).isSocket()) {
    await handle.close();
    throw new Error(`${socketPath} is not the jail helper's socket`);
  }
  // By pid rather than `self`: an unsandboxed code runner (a child of the engine, same user)
  // connects through the same path.
  return { close: () => handle.close(), path: `/proc/${process.pid}/fd/${handle.fd}` };
}
