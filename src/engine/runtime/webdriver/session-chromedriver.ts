/**
 * One chromedriver per session, started on the session's first classic WebDriver request and
 * stopped when the session ends (an end hook; sessions end when the engine stops). Jailed
 * (chromedriver-jail.ts) whenever the engine has bubblewrap: the engine reaches it through a
 * Unix socket and it reaches the browser through the session's CDP socket. Without the jail it
 * runs on the host like the rest of unjailed mode, on a random port of 127.0.0.1, attached to
 * the browser's own loopback DevTools port. A chromedriver that exits (a client's `/shutdown`)
 * is started again by the next request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SessionHandle } from '../session/session-handle.js';
import type { Slot } from '../session/session-scope.js';
import { devtoolsEndpoint } from '../chromium/devtools-address.js';
import { killGroup } from '../chromium/process-group.js';
import { DEFAULT_PATH } from '../sandbox/bwrap.js';
import { firstExecutable, onPath } from '../find-executable.js';
import { sessionCdpSocket } from '../sandbox/cdp-socket.js';
import { jailUserOf, own } from '../sandbox/jail-user.js';
import { jailSpawn } from '../sandbox/jail-start.js';
import { CHROMEDRIVER_SOCKET_NAME, JAILED_DEBUGGER_ADDRESS, chromedriverJailCommand } from './chromedriver-jail.js';

const START_TIMEOUT_MS = 30_000;
/** sun_path holds 108 bytes on Linux including the NUL. */
const MAX_SOCKET_PATH = 100;
const CANDIDATES = ['/usr/bin/chromedriver', '/usr/lib/chromium/chromedriver', '/usr/local/bin/chromedriver'];

export interface ChromedriverAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

export interface SessionChromedriver {
  readonly pid: number;
  /** What `goog:chromeOptions.debuggerAddress` must say for this chromedriver to reach the session's browser. */
  debuggerAddress(): string;
  /** One WebDriver HTTP command (`path` below chromedriver's root, e.g. `/session`). */
  request(method: string, path: string, body: Buffer | undefined, signal: AbortSignal): Promise<ChromedriverAnswer>;
}

export class ChromedriverUnavailable extends Error {}

/** The chromedriver binary (Debian's `chromium-driver`), or undefined. */
export function findChromedriver(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return firstExecutable([...CANDIDATES, ...onPath('chromedriver', env)]);
}

interface Running extends SessionChromedriver {
  stop(): Promise<void>;
}

/** The session's chromedriver while it runs or starts (a new one starts after it failed or exited). */
class ChromedriverHolder {
  running?: Promise<Started>;
}

/** Where a session's chromedriver is kept; each start hands its stop to the session's scope. */
const ChromedriverSlot: Slot<ChromedriverHolder> = { name: 'session-chromedriver', create: () => new ChromedriverHolder() };

/**
 * The session's chromedriver, started on first use. `bwrap` null: unjailed. `hide`: host paths
 * masked in the jail (the data dir).
 */
export async function sessionChromedriver(handle: SessionHandle, bwrap: string | null, hide: string[]): Promise<SessionChromedriver> {
  const holder = handle.scope.get(ChromedriverSlot);
  let p = holder.running;
  if (!p) {
    const started = start(handle, bwrap, hide);
    holder.running = started;
    started.then(
      (r) =>
        r.child.once('close', () => {
          if (holder.running === started) holder.running = undefined;
          void r.stop(); // its socket dir
        }),
      () => holder.running === started && (holder.running = undefined),
    );
    p = started;
  }
  return p;
}

async function start(handle: SessionHandle, bwrap: string | null, hide: string[]): Promise<Started> {
  if (handle.signal.aborted) throw new Error(`session ${handle.id} has ended`);
  const binary = findChromedriver();
  if (!binary) throw new ChromedriverUnavailable('chromedriver is not installed on this engine (Debian: apt-get install chromium-driver)');
  const r = bwrap ? await startJailed(handle, bwrap, binary, hide) : await startUnjailed(handle, binary);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= r.stop());
  // A scope already closed (ended while it was starting) runs it at once.
  handle.scope.defer('chromedriver', stop);
  if (handle.signal.aborted) await stop();
  return { ...r, stop };
}

interface Started extends Running {
  child: ChildProcess;
}

async function startJailed(handle: SessionHandle, bwrap: string, binary: string, hide: string[]): Promise<Started> {
  const cdpSocket = await sessionCdpSocket(handle);
  let sockDir = path.join(path.dirname(handle.dirs.root), 'webdriver');
  if (Buffer.byteLength(path.join(sockDir, CHROMEDRIVER_SOCKET_NAME)) > MAX_SOCKET_PATH) sockDir = await fsp.mkdtemp(path.join('/tmp', 'bd-wd-'));
  else {
    await fsp.rm(sockDir, { recursive: true, force: true });
    await fsp.mkdir(sockDir, { mode: 0o700 });
  }
  await fsp.chmod(sockDir, 0o700);
  // The session's jail user (jail-user.ts) runs it and creates its socket there.
  const user = jailUserOf(handle.dirs.root);
  await own(user, sockDir);
  const cmd = await chromedriverJailCommand({ bwrap, chromedriver: binary, cdpSocket, sockDir, hide });
  const run = jailSpawn(user, handle.jailGroups, cmd);
  const child = spawn(run.file, run.args, { ...run.as, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { PATH: DEFAULT_PATH } });
  const cleanup = () => fsp.rm(sockDir, { recursive: true, force: true });
  try {
    await untilReady(child, [/browserdeck-jail: ready/, /started successfully/]);
  } catch (err) {
    await kill(child);
    await cleanup();
    throw err;
  }
  const socketPath = path.join(sockDir, CHROMEDRIVER_SOCKET_NAME);
  return {
    child,
    pid: child.pid!,
    debuggerAddress: () => JAILED_DEBUGGER_ADDRESS,
    request: (method, p, body, signal) => send({ socketPath }, method, p, body, signal),
    stop: async () => {
      await kill(child);
      await cleanup();
    },
  };
}

async function startUnjailed(handle: SessionHandle, binary: string): Promise<Started> {
  const child = spawn(binary, ['--port=0'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { PATH: DEFAULT_PATH, HOME: os.tmpdir() } });
  let port = 0;
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const line = await untilReady(child, [/started successfully on port (\d+)/]);
    port = Number(/on port (\d+)/.exec(line)![1]);
    // The line can come before its socket accepts: a first request then was refused (502 in CI).
    await untilAccepting(port, child, deadline);
  } catch (err) {
    await kill(child);
    throw err;
  }
  return {
    child,
    pid: child.pid!,
    // The browser's own loopback port: read per new session, so it follows a restart.
    debuggerAddress: () => {
      const e = devtoolsEndpoint(handle.browserCdpUrl());
      return `${e.host}:${e.port}`;
    },
    request: (method, p, body, signal) => send({ host: '127.0.0.1', port }, method, p, body, signal),
    stop: () => kill(child),
  };
}

/** Resolves once 127.0.0.1:`port` accepts a connection (polled every 10 ms); rejects when the process exits or at `deadline` (the start's own limit, START_TIMEOUT_MS). */
async function untilAccepting(port: number, child: ChildProcess, deadline: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port }, () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('chromedriver exited before it accepted a connection');
    if (Date.now() > deadline) throw new Error(`chromedriver did not accept connections within ${START_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves with the output line that matched the last pattern once every pattern was seen; rejects when the process exits first or after START_TIMEOUT_MS. */
function untilReady(child: ChildProcess, patterns: RegExp[]): Promise<string> {
  const pending = new Set(patterns);
  let tail = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chromedriver did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    const onData = (d: Buffer) => {
      tail = (tail + d.toString('utf8')).slice(-4000);
      for (const p of pending) {
        const m = p.exec(tail);
        if (!m) continue;
        pending.delete(p);
        if (pending.size === 0) {
          clearTimeout(timer);
          child.off('close', onClose);
          resolve(m[0]);
        }
      }
    };
    const onClose = () => {
      clearTimeout(timer);
      reject(new Error(`chromedriver exited: ${tail.trim().split('\n').slice(-2).join(' | ')}`));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', onClose);
  });
}

/** Kills the process group (chromedriver and, unjailed, anything it started) and waits for it. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (!killGroup(child.pid!, 'SIGKILL')) child.kill('SIGKILL');
  await closed;
}

function send(
  to: { socketPath: string } | { host: string; port: number },
  method: string,
  p: string,
  body: Buffer | undefined,
  signal: AbortSignal,
): Promise<ChromedriverAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: 'localhost' };
    if (body) Object.assign(headers, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    const req = http.request({ ...to, method, path: p, headers, signal }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, contentType: res.headers['content-type'], body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
