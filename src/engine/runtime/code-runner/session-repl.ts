/**
 * A session's browser REPL (spec §9): one persistent Node process (repl-child.mjs) in the
 * session's jail, made on first use. Calls run one at a time in arrival order; state lives in
 * the process, so it survives calls and browser restarts (the child reconnects to the new
 * browser). A timeout or a crash ends the whole process group: that call answers
 * `repl_terminated: true` and the next one starts a fresh process with a new `repl_id`.
 * `reset` does the same on purpose before running its code. It ends with the session (the
 * engine's stop ends every session). Without the jail there is no REPL: Node's permission model, the executors' fallback,
 * forbids the inspector the REPL evaluates through.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionHandle } from '../session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { endGroup } from './process-group.js';
import { runnerCdpUrl } from './runner-launch.js';
import { startRunnerProcess, type RunnerProcess } from './runner-process.js';
import { activeTab } from './active-tab.js';
import { ReplMessage } from './runner-messages.js';
import type { RunnerServices } from './runner-services.js';
import type { Slot } from '../session/session-scope.js';

/** Marks REPL processes (their title inside the jail). */
export const REPL_MARKER = '--browserdeck-repl';
/**
 * What the engine keeps of one call's content: text and images (base64) apart. The child cuts
 * there too, but it runs the tenant's code, which can send the engine messages of its own.
 */
const CONTENT_CAP = { text: 1024 * 1024, image: 8 * 1024 * 1024 };
/** Calls that may wait behind the running one; more is 429 (each holds a request and its code). */
export const MAX_QUEUED_CALLS = 16;

export type ReplContent = { type: 'text'; channel: 'write' | 'stdout' | 'stderr'; text: string } | { type: 'image'; mime_type: string; data_b64: string };

export interface ReplResult {
  repl_id: string;
  success: boolean;
  content: ReplContent[];
  content_truncated?: boolean;
  duration_ms: number;
  error?: string;
  stack?: string;
  repl_terminated?: boolean;
}

interface Process extends RunnerProcess<typeof ReplMessage> {
  id: string;
}

/** A content item as the wire defines it, rebuilt from what the child sent; undefined if it is not one. */
function wellFormed(item: ReplContent): ReplContent | undefined {
  if (item?.type === 'text' && ['write', 'stdout', 'stderr'].includes(item.channel) && typeof item.text === 'string')
    return { type: 'text', channel: item.channel, text: item.text };
  if (item?.type === 'image' && typeof item.mime_type === 'string' && typeof item.data_b64 === 'string')
    return { type: 'image', mime_type: item.mime_type, data_b64: item.data_b64 };
  return undefined;
}

/** A CUID2-shaped id (a letter, then 23 base-36 characters), as Kernel's `repl_id` is. */
function replId(): string {
  const digits = [...randomBytes(23)].map((b) => (b % 36).toString(36)).join('');
  return String.fromCharCode(97 + (randomBytes(1)[0] % 26)) + digits;
}

export class SessionRepl {
  private proc?: Process;
  private queue: Promise<unknown> = Promise.resolve();
  /** Calls not yet finished (the running one and those waiting behind it). */
  private pending = 0;
  private ended = false;

  constructor(
    private readonly handle: SessionHandle,
    private readonly services: RunnerServices,
  ) {}

  /** The session's REPL from `slot` (sessionReplSlot), made on first use; 422 without the jail. */
  static async of(handle: SessionHandle, slot: Slot<SessionRepl>): Promise<SessionRepl> {
    if (!(await usableBwrap()))
      throw DomainError.unprocessable('the browser REPL needs the bubblewrap jail, which is not usable on this engine', 'repl_unavailable');
    return handle.scope.get(slot);
  }

  /** Runs a cell after the ones before it; throws (429) when MAX_QUEUED_CALLS already wait. */
  run(code: string, timeoutSec: number, reset: boolean): Promise<ReplResult> {
    if (this.pending > MAX_QUEUED_CALLS)
      throw DomainError.tooMany(`${MAX_QUEUED_CALLS} calls already wait on this browser's REPL; try again when one has finished`, 'repl_busy', 1);
    this.pending++;
    const result = this.queue.then(() => this.runNow(code, timeoutSec, reset)).finally(() => this.pending--);
    this.queue = result.catch(() => {});
    return result;
  }

  private async runNow(code: string, timeoutSec: number, reset: boolean): Promise<ReplResult> {
    const started = Date.now();
    if (reset) await this.kill();
    const content: ReplContent[] = [];
    let truncated = false;
    const room = { ...CONTENT_CAP };
    /** Keeps a well-formed item within the call's budget; anything else marks the content truncated. */
    const keep = (item: ReplContent) => {
      const kept = wellFormed(item);
      const size = kept ? (kept.type === 'text' ? kept.text.length : kept.data_b64.length) : Infinity;
      if (!kept || size > room[kept.type]) return void (truncated = true);
      room[kept.type] -= size;
      content.push(kept);
    };
    const finish = (r: Partial<ReplResult> & { success: boolean; repl_id: string }): ReplResult => ({
      content,
      ...(truncated ? { content_truncated: true } : {}),
      duration_ms: Date.now() - started,
      ...r,
    });
    if (this.ended) throw DomainError.notFound('browser session', this.handle.id);
    let proc: Process;
    try {
      proc = await this.process();
      await proc.ready;
    } catch (err) {
      await this.kill();
      return finish({
        repl_id: replId(),
        success: false,
        error: `the REPL did not start: ${err instanceof Error ? err.message : String(err)}`,
        repl_terminated: true,
      });
    }
    if (code === '') return finish({ repl_id: proc.id, success: true });
    const callId = randomUUID();
    const { wsUrl } = await this.handle.ready();
    const activeTargetId = await activeTab(this.handle, new Set()).catch(() => undefined);
    return new Promise<ReplResult>((resolve) => {
      const { child, channel } = proc;
      const done = (r: Omit<ReplResult, 'content' | 'duration_ms'>) => {
        clearTimeout(timer);
        offMessage();
        child.off('exit', onExit);
        resolve(finish(r));
      };
      const onMessage = (m: ReplMessage) => {
        if (m.type === 'content' && m.callId === callId) {
          if (m.item) keep(m.item);
          truncated ||= Boolean(m.truncated);
        } else if (m.type === 'answer' && m.callId === callId)
          done({ repl_id: proc.id, success: m.success, ...(m.error !== undefined ? { error: m.error, stack: m.stack } : {}) });
      };
      const onExit = channel.guard((code: number | null, signal: string | null) =>
        done({
          repl_id: proc.id,
          success: false,
          error: this.ended
            ? 'the session ended during execution'
            : (channel.failure ?? `the REPL process exited (${signal ?? `exit code ${code}`}), e.g. on an unhandled exception`),
          repl_terminated: true,
        }),
      );
      const timer = setTimeout(() => {
        child.off('exit', onExit);
        void this.kill().then(() =>
          done({ repl_id: proc.id, success: false, error: `execution timed out after ${timeoutSec} s; the REPL was terminated`, repl_terminated: true }),
        );
      }, timeoutSec * 1000);
      const offMessage = channel.on(onMessage);
      child.once('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return onExit(child.exitCode, child.signalCode);
      channel.send({ type: 'run', callId, code, activeTargetId, cdpUrl: runnerCdpUrl(wsUrl, true) });
    });
  }

  private async process(): Promise<Process> {
    if (this.proc) return this.proc;
    let proc: Process | undefined;
    const started = await startRunnerProcess(this.handle, {
      marker: `${REPL_MARKER}=${this.handle.id}`,
      services: this.services,
      bwrap: await usableBwrap(),
      script: 'repl-child.mjs',
      messages: ReplMessage,
      what: 'the REPL',
      ended: () => this.ended,
      onExit: () => {
        if (proc && this.proc === proc) this.proc = undefined;
      },
    });
    if (this.ended) {
      await endGroup(started.child);
      throw new Error('the session ended');
    }
    this.proc = proc = { ...started, id: replId() };
    return proc;
  }

  private async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (proc) await endGroup(proc.child);
  }

  /** The session ended (also at engine stop, which ends every session). */
  async end(): Promise<void> {
    this.ended = true;
    await this.kill();
  }
}

/** The slot of a session's REPL, wired with `services` once per engine (api/session-runners.ts). */
export function sessionReplSlot(services: RunnerServices): Slot<SessionRepl> {
  return { name: 'session-repl', create: (scope) => new SessionRepl(scope.handle, services), close: (r) => r.end() };
}
