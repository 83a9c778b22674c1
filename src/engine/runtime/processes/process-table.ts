/**
 * Every process of the engine, by id, owned by its session: started through the sandbox,
 * found again only with the same session (another session's process id is a 404), killed as
 * a group when the session ends and when the engine stops. Exited processes stay queryable
 * until their session ends (oldest dropped beyond a cap). Each also has a row in the session's
 * process list (`list`): what ran, from which door, how it ended — exec's included, whose
 * process is not kept — and the rows of an ended session stay until its post-mortem takes them
 * (`takeEnded`), so the list outlives the session.
 */
import { devtoolsEndpoint } from '../chromium/devtools-address.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionHandle } from '../session/session-handle.js';
import { requireDirectory } from '../session-fs/session-files.js';
import { hostPathOf } from '../session-fs/rooted-fs.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { sessionCdpSocket } from '../sandbox/cdp-socket.js';
import { baseEnv, buildLaunch, cdpEnv } from './sandbox-command.js';
import { SessionProcess, type StartOptions } from './session-process.js';
import { exitSignal } from '../../../shared/exit-signal.js';
import type { ProcessInfo } from '../../../shared/wire/session-processes.js';

const MAX_EXITED_PER_SESSION = 200;
/** Ended sessions whose rows wait for their post-mortem (it takes them at once; a bound, not a store). */
const MAX_ENDED_SESSIONS = 256;

export type ProcessOrigin = ProcessInfo['origin'];

export interface ProcessRequest {
  command: string;
  args?: string[];
  cwd?: string | null;
  env?: Record<string, string>;
  timeout_sec?: number | null;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Linux refuses to exec (E2BIG) a single argument or environment string of 128 KiB or more
 * (MAX_ARG_STRLEN, NUL included), and an argument list plus environment beyond ARG_MAX (a
 * quarter of the stack limit, usually 2 MiB). Inside the sandbox the environment travels as
 * bwrap arguments and the sandbox adds its own, so the total allowed here leaves room for them.
 */
export const MAX_ARG_STRING_BYTES = 128 * 1024 - 1;
export const MAX_ARGS_TOTAL_BYTES = 1024 * 1024;

function tooLong(field: string, message: string): DomainError {
  return new DomainError(400, 'argument_list_too_long', `${field}: ${message}`, [{ code: 'invalid_field', message: `${field}: ${message}` }]);
}

function validate(req: ProcessRequest): void {
  if (!req.command || req.command.includes('\0')) throw DomainError.invalidField('command', 'must be a non-empty string without NUL bytes');
  for (const [i, a] of (req.args ?? []).entries()) if (a.includes('\0')) throw DomainError.invalidField(`args.${i}`, 'must not contain NUL bytes');
  for (const [k, v] of Object.entries(req.env ?? {})) {
    if (!ENV_NAME.test(k)) throw DomainError.invalidField(`env.${k}`, 'is not a valid environment variable name');
    if (typeof v !== 'string' || v.includes('\0')) throw DomainError.invalidField(`env.${k}`, 'must be a string without NUL bytes');
  }
  const strings: Array<[string, string]> = [
    ['command', req.command],
    ...(req.args ?? []).map((a, i): [string, string] => [`args.${i}`, a]),
    ...Object.entries(req.env ?? {}).map(([k, v]): [string, string] => [`env.${k}`, `${k}=${v}`]),
  ];
  let total = 0;
  for (const [field, s] of strings) {
    const bytes = Buffer.byteLength(s);
    if (bytes > MAX_ARG_STRING_BYTES) throw tooLong(field, `is ${bytes} bytes; one argument or environment entry may have at most ${MAX_ARG_STRING_BYTES}`);
    total += bytes + 1;
  }
  if (total > MAX_ARGS_TOTAL_BYTES) throw tooLong('args', `command, args and env total ${total} bytes; at most ${MAX_ARGS_TOTAL_BYTES} are allowed`);
}

/**
 * `spawn` reports an exec failure synchronously except for a few codes (ENOENT, EACCES, …, which
 * become an exit with status 127): E2BIG (a machine with a smaller stack limit), ENAMETOOLONG,
 * ENOTDIR, ELOOP come from what the client sent, so they are the client's error, not a 500.
 */
function spawnFailure(err: unknown): DomainError | undefined {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || !e.syscall?.startsWith('spawn')) return undefined;
  if (e.code === 'E2BIG') return tooLong('args', 'the argument list and environment are too long for this machine (E2BIG)');
  return new DomainError(422, 'spawn_failed', `the command could not be started (${e.code})`, [{ code: e.code, message: e.message }]);
}

function directCdpUrl(session: SessionHandle): string {
  try {
    const e = devtoolsEndpoint(session.browserCdpUrl());
    // A jailed browser has no host port; its processes are jailed too and get 127.0.0.1:9222.
    return e.socketPath ? '' : `http://${e.host}:${e.port}`;
  } catch {
    return ''; // browser restarting: no address to hand out right now
  }
}

/** A process's row: what it is and how it is now (a running one's CPU and memory sampled now). */
function infoOf(p: SessionProcess, what: { command: string; args: string[]; origin: ProcessOrigin }): ProcessInfo {
  const st = p.status();
  const signal = exitSignal(st.exit_code);
  return {
    process_id: p.id,
    pid: p.pid,
    command: what.command,
    args: what.args,
    origin: what.origin,
    tty: p.tty,
    state: st.state,
    exit_code: st.exit_code,
    ...(signal ? { exit_signal: signal } : {}),
    ...(p.timedOut ? { timed_out: true } : {}),
    started_at: p.startedAt.toISOString(),
    ...(p.endedAt ? { ended_at: p.endedAt.toISOString() } : {}),
    cpu_pct: st.cpu_pct,
    mem_bytes: st.mem_bytes,
  };
}

export class ProcessTable {
  private processes = new Map<string, SessionProcess>();
  private hooked = new WeakSet<SessionHandle>();
  private readonly what = new WeakMap<SessionProcess, { command: string; args: string[]; origin: ProcessOrigin }>();
  /** Per running session: rows of processes no longer held (exec results, trimmed ones), oldest first. */
  private readonly gone = new Map<string, ProcessInfo[]>();
  /** Per ended session: its final rows, until its post-mortem takes them. */
  private readonly ended = new Map<string, ProcessInfo[]>();

  constructor(private readonly hide: string[]) {}

  async start(
    session: SessionHandle,
    req: ProcessRequest,
    opts: Omit<StartOptions, 'timeoutSec'> = {},
    origin: ProcessOrigin = 'spawn',
  ): Promise<SessionProcess> {
    validate(req);
    if (session.signal.aborted) throw DomainError.notFound('browser session', session.id);
    // Inside the jail the cwd is a path of the jail's own view; the host path only serves the
    // unsandboxed fallback.
    const cwdVirtual = await requireDirectory(session.dirs.root, req.cwd ?? '/', 'cwd').catch((err) => {
      throw err instanceof DomainError && err.status === 404 ? new DomainError(400, 'invalid_request', `cwd: ${String(req.cwd)} does not exist`) : err;
    });
    const bwrap = await usableBwrap();
    // Unsandboxed processes share the host network: they get the browser's real DevTools address.
    const direct = bwrap ? {} : cdpEnv(directCdpUrl(session));
    const env = baseEnv({ ...(session.display ? { DISPLAY: session.display } : {}), ...direct, ...(req.env ?? {}) }, Boolean(opts.tty));
    const cdpSocket = bwrap ? await sessionCdpSocket(session) : undefined;
    const launch = await buildLaunch(
      {
        root: session.dirs.root,
        cwdVirtual,
        cwdHost: hostPathOf(session.dirs.root, cwdVirtual),
        command: req.command,
        args: req.args ?? [],
        env,
        hide: this.hide,
        cdpSocket,
        x11Dir: session.x11Socket,
        groups: session.jailGroups,
      },
      bwrap,
    );
    let proc: SessionProcess;
    try {
      proc = new SessionProcess(session.id, launch, { ...opts, timeoutSec: req.timeout_sec ?? undefined });
    } catch (err) {
      await launch.cleanup?.();
      throw spawnFailure(err) ?? err;
    }
    this.processes.set(proc.id, proc);
    this.what.set(proc, { command: req.command, args: req.args ?? [], origin });
    this.hook(session);
    await proc.locateCommand(launch.commandDepth);
    this.trim(session.id);
    return proc;
  }

  private hook(session: SessionHandle): void {
    if (this.hooked.has(session)) return;
    this.hooked.add(session);
    session.scope.defer('processes', () => this.endSession(session.id));
  }

  private trim(sessionId: string): void {
    const exited = [...this.processes.values()].filter((p) => p.sessionId === sessionId && !p.running);
    for (const p of exited.slice(0, Math.max(0, exited.length - MAX_EXITED_PER_SESSION))) this.forget(p.id);
  }

  private rowOf(p: SessionProcess): ProcessInfo {
    return infoOf(p, this.what.get(p) ?? { command: '', args: [], origin: 'spawn' });
  }

  /** Every process the session ran (running or exited), oldest first; an ended session's final rows until its post-mortem takes them. */
  list(sessionId: string): ProcessInfo[] {
    const ended = this.ended.get(sessionId);
    if (ended) return ended.slice();
    const held = [...this.processes.values()].filter((p) => p.sessionId === sessionId).map((p) => this.rowOf(p));
    return [...(this.gone.get(sessionId) ?? []), ...held].sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  /** The final rows of an ended session, handed over once (to its post-mortem). */
  takeEnded(sessionId: string): ProcessInfo[] {
    const rows = this.ended.get(sessionId) ?? [];
    this.ended.delete(sessionId);
    return rows;
  }

  get(sessionId: string, processId: string): SessionProcess {
    const p = this.processes.get(processId);
    if (!p || p.sessionId !== sessionId) throw DomainError.notFound('process', processId);
    return p;
  }

  /** Drops a finished process (exec results are not kept); its row stays in the session's list. */
  forget(processId: string): void {
    const p = this.processes.get(processId);
    if (!p) return;
    this.processes.delete(processId);
    const rows = this.gone.get(p.sessionId) ?? [];
    rows.push(this.rowOf(p));
    if (rows.length > MAX_EXITED_PER_SESSION) rows.shift();
    this.gone.set(p.sessionId, rows);
  }

  async endSession(sessionId: string): Promise<void> {
    const mine = [...this.processes.values()].filter((p) => p.sessionId === sessionId);
    for (const p of mine) p.killGroup();
    await Promise.all(mine.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 2000))])));
    const rows = this.list(sessionId);
    for (const p of mine) this.processes.delete(p.id);
    this.gone.delete(sessionId);
    this.ended.set(sessionId, rows);
    if (this.ended.size > MAX_ENDED_SESSIONS) this.ended.delete(this.ended.keys().next().value as string);
  }

  async stopAll(): Promise<void> {
    const ids = new Set([...this.processes.values()].map((p) => p.sessionId));
    await Promise.all([...ids].map((id) => this.endSession(id)));
  }
}
