/**
 * One session's watcher process (fs-watcher-child.mjs, started by fs-watcher-launch.ts), which
 * holds every watch of the session: the engine sends it `add`/`remove` commands on stdin and reads
 * its reports from stdout through fs-watcher-report.ts (bounded lines, schema, paths inside the
 * watched dir). It starts with the session's first watch and is ended (its whole process group)
 * when its last watch ends, with the session, and at engine stop; should it exit or misbehave (an
 * oversized line), its watches end and the session's log says why.
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { sessionSignals } from '../../events/session-signals.js';
import { endGroup } from '../code-runner/process-group.js';
import type { SessionHandle } from '../session/session-handle.js';
import { buildWatcherLaunch, spawnWatcher } from './fs-watcher-launch.js';
import { notFound } from './rooted-fs.js';
import { MAX_REPORT_LINE, boundedLines, clientPathBelow, parseReport, type WatchEventType, type WatcherReport } from './fs-watcher-report.js';

export type { WatchEventType } from './fs-watcher-report.js';
export interface WatchEvent {
  path: string;
  type: WatchEventType;
  is_dir: boolean;
  name: string;
}

const MAX_BUFFERED = 10_000;
/** How long the first walk of a watch may take before the create gives up (a budget-sized tree walks in well under this). */
const ADD_TIMEOUT_MS = 60_000;

export interface WatcherOptions {
  /** Directories all watches of one session may watch together. */
  budget: number;
  /** Host paths to mask in the jail (the data dir). */
  hide: string[];
  bwrap: string | null;
  /** A line for the session's log (`/logs/stream?source=supervisor`, service `session`). */
  log: (sessionId: string, line: string) => void;
}

/** One watch as the API sees it: events buffered until a client reads them, then live. */
export class FsWatch {
  readonly id = randomUUID();
  ended = false;
  private buffer: WatchEvent[] = [];
  private listeners = new Set<(e: WatchEvent) => void>();
  private endListeners = new Set<() => void>();

  constructor(
    readonly sessionId: string,
    /** The watched directory as a client path. */
    readonly dir: string,
    readonly recursive: boolean,
    private readonly onStop: (w: FsWatch) => void,
  ) {}

  deliver(event: WatchEvent): void {
    if (this.ended) return;
    if (this.listeners.size === 0) {
      this.buffer.push(event);
      if (this.buffer.length > MAX_BUFFERED) this.buffer.shift();
    }
    for (const fn of this.listeners) fn(event);
  }

  /** Delivers buffered events, then live ones, until `stop` or the returned unsubscribe. */
  subscribe(fn: (e: WatchEvent) => void, onEnd: () => void): () => void {
    for (const e of this.buffer.splice(0)) fn(e);
    this.listeners.add(fn);
    this.endListeners.add(onEnd);
    if (this.ended) onEnd();
    return () => {
      this.listeners.delete(fn);
      this.endListeners.delete(onEnd);
    };
  }

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.onStop(this);
    for (const fn of [...this.endListeners]) fn();
    this.listeners.clear();
    this.endListeners.clear();
  }
}

interface PendingAdd {
  watch: FsWatch;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class SessionWatcher {
  private readonly watches = new Map<string, FsWatch>();
  private readonly pending = new Map<string, PendingAdd>();
  private child?: ChildProcess;
  private starting?: Promise<ChildProcess>;
  private closed = false;
  /** Adds between their call and their pending entry (a remove then must not end the process). */
  private adding = 0;

  constructor(
    private readonly handle: SessionHandle,
    private readonly opts: WatcherOptions,
    /** Called when it starts closing: the registry forgets it. */
    private readonly onClosed: () => void,
  ) {}

  get size(): number {
    return this.watches.size + this.pending.size + this.adding;
  }

  /** Starts `w` in the watcher; resolves once its directories are watched, else throws the refusal. */
  async add(w: FsWatch): Promise<void> {
    try {
      await this.start(w);
    } catch (err) {
      // A refused first watch leaves no process behind, nor does a launch that failed.
      if (this.size === 0) void this.close();
      throw err;
    }
    this.watches.set(w.id, w);
  }

  private async start(w: FsWatch): Promise<void> {
    this.adding++;
    let child: ChildProcess;
    try {
      child = await this.process();
    } finally {
      this.adding--;
    }
    if (this.closed) throw new DomainError(503, 'watch_failed', 'the watcher ended');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(w.id);
        this.send({ op: 'remove', id: w.id });
        reject(new DomainError(503, 'watch_failed', `watching ${w.dir} did not start within ${ADD_TIMEOUT_MS / 1000} s`));
      }, ADD_TIMEOUT_MS);
      this.pending.set(w.id, { watch: w, resolve, reject, timer });
      if (!this.send({ op: 'add', id: w.id, dir: w.dir, recursive: w.recursive }, child))
        this.settle(w.id, new DomainError(503, 'watch_failed', 'the watcher is not running'));
    });
  }

  /** Called by a stopped watch: the watcher forgets it, and ends once nothing is left. */
  remove(w: FsWatch): void {
    if (!this.watches.delete(w.id)) return;
    this.send({ op: 'remove', id: w.id });
    if (this.size === 0) void this.close();
  }

  private process(): Promise<ChildProcess> {
    if (this.closed) return Promise.reject(new DomainError(503, 'watch_failed', 'the session is ending'));
    this.starting ??= (async () => {
      const launch = await buildWatcherLaunch(this.handle, this.opts.budget, this.opts.hide, this.opts.bwrap);
      const child = spawnWatcher(launch);
      this.child = child;
      const feed = boundedLines(
        MAX_REPORT_LINE,
        (line) => this.onReport(parseReport(line)),
        () => void this.fail('the watcher wrote an oversized line'),
      );
      child.stdout!.on('data', feed);
      child.stdin!.on('error', () => {});
      child.on('error', () => void this.fail('the watcher could not start'));
      child.on('exit', () => void this.fail('the watcher exited'));
      return child;
    })();
    return this.starting;
  }

  private send(cmd: object, child = this.child): boolean {
    if (!child?.stdin?.writable) return false;
    child.stdin.write(`${JSON.stringify(cmd)}\n`);
    return true;
  }

  private settle(id: string, err?: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve();
  }

  private onReport(r: WatcherReport | undefined): void {
    if (!r) return;
    switch (r.t) {
      case 'added':
        return this.settle(r.id);
      case 'refused':
        return this.settle(r.id, this.refusal(r));
      case 'event': {
        const w = this.watches.get(r.id);
        const p = w && clientPathBelow(w.dir, r.path);
        if (w && p) w.deliver({ path: p, type: r.type, is_dir: r.dir, name: p.slice(p.lastIndexOf('/') + 1) });
        return;
      }
      case 'limit': {
        const w = this.watches.get(r.id);
        if (!w) return;
        this.opts.log(
          this.handle.id,
          `fs watch ${w.id} of ${w.dir} ended: its tree grew past the session's watch budget of ${this.opts.budget} directories (BROWSERDECK_FS_WATCH_MAX_DIRS)`,
        );
        this.limitReached();
        return w.stop();
      }
      case 'ended':
        return this.watches.get(r.id)?.stop();
    }
  }

  private refusal(r: Extract<WatcherReport, { t: 'refused' }>): DomainError {
    const w = this.pending.get(r.id)?.watch;
    const dir = w?.dir ?? 'the directory';
    if (r.code === 'watch_limit') {
      const message = `watching ${dir} needs more directories than the session's watch budget of ${this.opts.budget} leaves (watches of a session share it)`;
      this.opts.log(this.handle.id, `fs watch of ${dir} refused: ${message}`);
      this.limitReached();
      return new DomainError(409, 'watch_limit', message, [{ code: 'watch_limit', message: `budget: ${this.opts.budget} directories per session` }], {
        retryable: false,
      });
    }
    if (r.code === 'not_found') return notFound(dir);
    return new DomainError(503, 'watch_failed', `watching ${dir} failed`);
  }

  /** The session's telemetry hears of it like every other limit (`system_limit_reached`). */
  private limitReached(): void {
    sessionSignals.emit({ type: 'limit_reached', sessionId: this.handle.id, limit: 'fs_watch_dirs', scope: 'session', max: this.opts.budget });
  }

  /** The process is gone or misbehaved: every watch of it ends. */
  private async fail(why: string): Promise<void> {
    if (this.closed) return;
    if (this.watches.size || this.pending.size) this.opts.log(this.handle.id, `fs watches ended: ${why}`);
    await this.close();
  }

  /** Ends every watch and the process group. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClosed(); // a watch created from now on gets a new process
    for (const id of [...this.pending.keys()]) this.settle(id, new DomainError(503, 'watch_failed', 'the watcher ended'));
    for (const w of [...this.watches.values()]) w.stop();
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    if (child) await endGroup(child);
  }
}
