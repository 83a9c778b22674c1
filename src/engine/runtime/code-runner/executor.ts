/**
 * One Playwright executor (spec §7): a long-lived Node process (code-runner-child.mjs, in the
 * session's jail — runner-launch.ts) with its own browser connection. Calls on it run one at a
 * time in arrival order; the process and its tab persist between calls, each call's code gets
 * fresh JavaScript globals. A timeout answers at once and tells the process to drop its browser
 * connection (abandoned code can no longer drive the browser); if it does not confirm — its
 * event loop is blocked — the process group is killed and the next call starts a new one, as
 * after a crash. Stopping (delete, restart, session end, engine stop) kills the group and fails
 * a running call with the reason.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { RunnerChannel } from '../sandbox/runner-channel.js';
import { endGroup } from './process-group.js';
import { spawnRunner, type RunnerLaunch, type SpawnedRunner } from './runner-launch.js';
import { ExecutorMessage } from './runner-messages.js';

export interface TabRef {
  created: boolean;
  target_id: string;
}

export interface CallResult {
  success: boolean;
  result?: unknown;
  error?: string;
  stdout: string;
  stderr: string;
  tab?: TabRef;
}

/** The tab a call binds `page` to: an existing target, or a new (background) tab when none. */
export interface TabChoice {
  targetId?: string;
  background: boolean;
}

export interface ExecutorCall {
  js: string;
  timeoutSec: number;
  /** Where the child writes a Playwright trace of the call (a path as the child sees it). */
  tracePath?: string;
}

type ChildAnswer = Pick<CallResult, 'success' | 'result' | 'error'>;
type Runner = SpawnedRunner<typeof ExecutorMessage>;
/** The executor's channel, for what else it serves (webmcp/webmcp-bridge.ts, through RunnerServices). */
export type ExecutorChannel = RunnerChannel<typeof ExecutorMessage>;

/** Longest wait for a process to start, connect and bind a tab before the code's own clock runs. */
const STARTUP_TIMEOUT_MS = 60_000;
/** How long a timed-out process may take to drop its browser connection before it is killed. */
const DROP_GRACE_MS = 3_000;
/**
 * What the engine keeps of one call's stdout and of its stderr. The child cuts there too, but
 * the child runs the tenant's code, which can send the engine messages of its own.
 */
const OUTPUT_CAP = 1024 * 1024;
const TRUNCATED = '\n[output truncated]';
/** Calls that may wait behind the running one on one executor; more is 429 (each holds a request and its code). */
export const MAX_QUEUED_CALLS = 16;

interface Running {
  callId: string;
  finish(r: CallResult): void;
  tab?: TabRef;
  stdout: string;
  stderr: string;
  /** The process the call was sent to (an earlier process exiting late is not its crash). */
  child?: Runner;
}

export class Executor {
  readonly createdAt = new Date();
  lastUsedAt = this.createdAt;
  /** The tab `page` was last bound to (a named executor's own tab). */
  targetId?: string;
  private child?: Runner;
  private running?: Running;
  private queue: Promise<unknown> = Promise.resolve();
  /** Calls waiting behind the running one. */
  queued = 0;
  private recovering?: Promise<void>;
  private stopped?: string;
  /** Counts stops: a launch prepared across a stop is not started (its call was answered). */
  private stops = 0;

  constructor(
    readonly name: string,
    private readonly launch: () => Promise<RunnerLaunch>,
    /** Which tab the next call binds to (asked just before it runs). */
    private readonly chooseTab: (executor: Executor) => Promise<TabChoice>,
    /** Serves a new process's requests besides calls (`webmcp.*`); `runningCall` names the call running now. */
    private readonly serve?: (channel: ExecutorChannel, runningCall: () => string | undefined) => void,
  ) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Runs a call after the ones before it on this executor; never rejects for what the code does.
   * Throws (429) when MAX_QUEUED_CALLS already wait.
   */
  run(call: ExecutorCall): Promise<CallResult> {
    if (this.queued >= MAX_QUEUED_CALLS)
      throw DomainError.tooMany(`${MAX_QUEUED_CALLS} calls already wait on executor "${this.name}"; try again when one has finished`, 'executor_busy', 1);
    this.queued++;
    const result = this.queue.then(() => {
      this.queued--;
      return this.runNow(call);
    });
    this.queue = result.catch(() => {});
    return result;
  }

  private async runNow(call: ExecutorCall): Promise<CallResult> {
    if (this.stopped) return { ...fail(this.stopped), stdout: '', stderr: '' };
    this.lastUsedAt = new Date();
    const callId = randomUUID();
    const answer = new Promise<CallResult>((resolve) => (this.running = { callId, finish: resolve, stdout: '', stderr: '' }));
    try {
      await this.recovering;
      const child = await this.process();
      const bind = await this.chooseTab(this);
      if (this.running?.callId === callId) this.running.child = child;
      child.channel.send({ type: 'run', callId, js: call.js, bind, trace: call.tracePath ? { path: call.tracePath } : undefined });
      let timer = setTimeout(() => this.timeOut(callId, `the executor did not start within ${STARTUP_TIMEOUT_MS / 1000} s`), STARTUP_TIMEOUT_MS);
      const offBound = child.channel.on((m) => {
        if (m.type !== 'bound' || m.callId !== callId) return;
        // timeout_sec counts from the moment the code starts, not the process start or connect.
        clearTimeout(timer);
        timer = setTimeout(() => this.timeOut(callId, `execution timed out after ${call.timeoutSec} s`), call.timeoutSec * 1000);
      });
      void answer.finally(() => {
        clearTimeout(timer);
        offBound();
      });
    } catch (err) {
      this.finish(callId, fail(err instanceof Error ? err.message : String(err)));
    }
    return answer;
  }

  /** Answers the running call (once): what the code printed until now, and its tab once bound. */
  private finish(callId: string, r: ChildAnswer): void {
    const running = this.running;
    if (running?.callId !== callId) return;
    this.running = undefined;
    running.finish({ ...r, stdout: running.stdout, stderr: running.stderr, ...(running.tab ? { tab: running.tab } : {}) });
  }

  private async process(): Promise<Runner> {
    if (this.child) return this.child;
    const stops = this.stops;
    const launch = await this.launch();
    // Stopped meanwhile: nothing would end a process started now (a deleted executor is gone).
    if (stops !== this.stops) throw new Error(this.stopped ?? 'the executor was stopped');
    const runner = spawnRunner(launch, ExecutorMessage, 'the code runner');
    const { child, channel } = runner;
    this.serve?.(channel, () => this.running?.callId);
    channel.on((m) => {
      if (m.type === 'bound' && this.running?.callId === m.callId) {
        this.running.tab = { created: m.tab.created, target_id: m.tab.target_id };
        this.targetId = m.tab.target_id;
      } else if (m.type === 'output' && this.running?.callId === m.callId) this.running[m.stream] = appendCapped(this.running[m.stream], m.text);
      else if (m.type === 'answer') {
        const { success, result, error } = m.answer;
        this.finish(m.callId, { success, ...(result !== undefined && { result }), ...(error !== undefined && { error }) });
      }
    });
    child.once(
      'exit',
      channel.guard((code: number | null, signal: NodeJS.Signals | null) => {
        if (this.child === runner) this.child = undefined;
        void endGroup(child);
        const r = this.running;
        if (r?.child !== runner) return;
        const why = channel.failure
          ? `${channel.failure}; the next call starts a new one`
          : (this.stopped ?? `the executor exited unexpectedly (${signal ?? `exit code ${code}`}); the next call starts a new one`);
        this.finish(r.callId, fail(why));
      }),
    );
    this.child = runner;
    return runner;
  }

  private timeOut(callId: string, message: string): void {
    if (this.running?.callId !== callId) return;
    const child = this.child;
    this.finish(callId, fail(`${message}; its browser connection was dropped`));
    if (!child) return;
    this.recovering = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(grace);
        offDropped();
        resolve();
      };
      // A blocked event loop never answers: the process goes, the next call starts a fresh one.
      const grace = setTimeout(() => {
        if (this.child === child) this.child = undefined;
        void endGroup(child.child).then(done);
      }, DROP_GRACE_MS);
      const offDropped = child.channel.on((m) => m.type === 'dropped' && done());
      child.child.once('exit', done);
      child.channel.send({ type: 'drop' });
    });
  }

  /**
   * Ends the process; a running call fails with `reason`. `final`: later calls fail too (a
   * deleted executor); otherwise the next call starts a new process (a restart).
   */
  async stop(reason: string, final: boolean): Promise<void> {
    if (final) this.stopped = reason;
    this.stops++;
    const child = this.child;
    this.child = undefined;
    const r = this.running;
    if (r) this.finish(r.callId, fail(reason));
    if (child) await endGroup(child.child);
  }
}

/** `text` added to `kept` up to OUTPUT_CAP; what is cut shows as one TRUNCATED mark. */
function appendCapped(kept: string, text: string): string {
  if (kept.length >= OUTPUT_CAP) return kept;
  const room = OUTPUT_CAP - kept.length;
  return text.length <= room ? kept + text : kept + text.slice(0, room) + TRUNCATED;
}

function fail(error: string): ChildAnswer {
  return { success: false, error };
}
