/**
 * One process of a session, started through `buildLaunch` either on pipes (`child_process`,
 * stdout and stderr kept apart) or on a PTY (`node-pty`, one merged stream reported as stdout).
 * It runs in its own process group so the whole tree can be killed at once; inside bwrap the
 * user's command runs below wrappers (bwrap → bwrap init → CDP forwarder → command), and signals
 * and status go to that pid.
 * Output goes to a bounded history plus live subscribers; the exit is an event of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as pty from 'node-pty';
import { OutputBuffer, type OutputChunk, type StreamName } from './output-buffer.js';
import { ProcStats, childrenOf } from './proc-stats.js';
import type { LaunchSpec } from './sandbox-command.js';
import { jailSpawn } from '../sandbox/jail-start.js';

import type { ProcessSignal } from '../../../shared/wire/session-processes.js';

export { PROCESS_SIGNALS, type ProcessSignal } from '../../../shared/wire/session-processes.js';

/** What an exited process keeps of its output for late readers (a session keeps up to 200 exited ones). */
const EXITED_HISTORY_BYTES = 64 * 1024;

export interface ProcessEvents {
  output(chunk: OutputChunk): void;
  exit(code: number): void;
}

export interface StartOptions {
  tty?: { cols: number; rows: number };
  /** Kill the process group after this many seconds. */
  timeoutSec?: number;
  /** Output kept for late subscribers (0: none, as for `exec`, whose one reader is `capture`). */
  historyBytes?: number;
  /** A subscriber from the first byte on (subscribe() after the start would miss what came before). */
  capture?: ProcessEvents;
}

export class SessionProcess {
  readonly id = randomUUID();
  readonly startedAt = new Date();
  readonly tty: boolean;
  /** Host pid of the user's command (below bwrap's wrappers when sandboxed). */
  pid: number;
  /** Pid of the direct child = process group id. */
  readonly groupPid: number;
  exitCode: number | null = null;
  /** When it exited (the process list shows it). */
  endedAt?: Date;
  timedOut = false;
  private readonly history: OutputBuffer;
  private readonly subscribers = new Set<ProcessEvents>();
  private readonly child?: ChildProcess;
  private readonly term?: pty.IPty;
  private readonly stats: ProcStats;
  private timer?: NodeJS.Timeout;
  readonly exited: Promise<number>;

  constructor(
    readonly sessionId: string,
    launch: LaunchSpec,
    opts: StartOptions = {},
  ) {
    this.history = new OutputBuffer(opts.historyBytes);
    if (opts.capture) this.subscribers.add(opts.capture);
    this.tty = Boolean(opts.tty);
    let resolveExit!: (code: number) => void;
    this.exited = new Promise((r) => (resolveExit = r));
    const onExit = (code: number) => {
      if (this.exitCode !== null) return;
      this.exitCode = code;
      this.endedAt = new Date();
      this.history.shrink(EXITED_HISTORY_BYTES);
      void launch.cleanup?.().catch(() => {});
      if (this.timer) clearTimeout(this.timer);
      this.killGroup(); // leftovers of the tree die with it
      for (const s of this.subscribers) s.exit(code);
      this.subscribers.clear();
      resolveExit(code);
    };
    // In the session's groups from its first instruction, with no inherited fd: a root shell joins
    // them and execs setpriv (the uid switch), which execs bwrap — one pid throughout, so
    // commandDepth holds. Unsandboxed (no bwrap) it is the command itself.
    const run = launch.sandboxed ? jailSpawn(launch.user, launch.groups, launch) : { file: launch.file, args: launch.args, as: {} };
    if (opts.tty) {
      // node-pty's own uid switch keeps root's supplementary groups: setpriv (in `run`) clears them.
      this.term = pty.spawn(run.file, run.args, {
        cols: opts.tty.cols,
        rows: opts.tty.rows,
        cwd: launch.cwd,
        env: launch.env,
        encoding: null,
        name: 'xterm-256color',
      });
      this.term.onData((d) => this.emit('stdout', Buffer.isBuffer(d) ? d : Buffer.from(d)));
      this.term.onExit(({ exitCode, signal }) => onExit(signal ? 128 + signal : exitCode));
      this.groupPid = this.term.pid;
    } else {
      this.child = spawn(run.file, run.args, {
        ...run.as,
        cwd: launch.cwd,
        env: launch.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.child.stdout!.on('data', (d: Buffer) => this.emit('stdout', d));
      this.child.stderr!.on('data', (d: Buffer) => this.emit('stderr', d));
      this.child.stdin!.on('error', () => {});
      let spawnError: Error | undefined;
      this.child.on('error', (err) => {
        spawnError = err;
        this.emit('stderr', Buffer.from(`${err.message}\n`));
        onExit(127);
      });
      // 'close' (not 'exit') so every byte of output has been delivered before the exit event.
      this.child.on('close', (code, signal) => {
        if (!spawnError) onExit(code ?? (signal ? 128 + signalNumber(signal) : 1));
      });
      this.groupPid = this.child.pid ?? -1;
    }
    this.pid = this.groupPid;
    this.stats = new ProcStats(this.startedAt.getTime());
    if (opts.timeoutSec && opts.timeoutSec > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.killGroup();
      }, opts.timeoutSec * 1000);
      this.timer.unref();
    }
  }

  /**
   * Inside bwrap, finds the user's command (`depth` generations below the spawned process:
   * bwrap → init → [cdp-exec →] command) so signals and status reach it and not a wrapper.
   * Waits as long as the wrappers take to start (node startup is slow on a loaded machine).
   */
  async locateCommand(depth: number): Promise<void> {
    if (depth <= 0 || this.groupPid <= 0) return;
    for (let wait = 2; this.exitCode === null; wait = Math.min(wait * 2, 50)) {
      let p: number | undefined = this.groupPid;
      for (let i = 0; i < depth && p; i++) p = childrenOf(p)[0];
      if (p) {
        this.pid = p;
        return;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  get running(): boolean {
    return this.exitCode === null;
  }

  private emit(stream: StreamName, data: Buffer): void {
    const chunk = { stream, data };
    this.history.push(chunk);
    for (const s of this.subscribers) s.output(chunk);
  }

  /** Replays the history, then streams live output and the exit. Returns an unsubscribe. */
  subscribe(events: ProcessEvents): () => void {
    for (const c of this.history.snapshot()) events.output(c);
    if (this.exitCode !== null) {
      events.exit(this.exitCode);
      return () => {};
    }
    this.subscribers.add(events);
    return () => this.subscribers.delete(events);
  }

  write(data: Buffer): number {
    if (!this.running) return 0;
    if (this.term) this.term.write(data);
    else this.child!.stdin!.write(data);
    return data.length;
  }

  /** Closes stdin (pipes only): lets `cat`-like commands finish. */
  endInput(): void {
    this.child?.stdin?.end();
  }

  signal(sig: ProcessSignal): void {
    if (!this.running) return;
    try {
      process.kill(this.pid, `SIG${sig}` as NodeJS.Signals);
    } catch {}
  }

  resize(cols: number, rows: number): boolean {
    if (!this.term || !this.running) return false;
    this.term.resize(cols, rows);
    return true;
  }

  killGroup(): void {
    if (this.groupPid <= 0) return;
    try {
      process.kill(-this.groupPid, 'SIGKILL');
    } catch {}
  }

  status(): { state: 'running' | 'exited'; exit_code: number | null; cpu_pct: number; mem_bytes: number } {
    // The command's own tree: the sandbox's wrappers (bwrap, the CDP forwarder) are not the user's.
    const s = this.running ? this.stats.sample(this.pid) : { cpu_pct: 0, mem_bytes: 0 };
    return { state: this.running ? 'running' : 'exited', exit_code: this.exitCode, ...s };
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  const map: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13, SIGABRT: 6, SIGSEGV: 11 };
  return map[signal] ?? 1;
}
