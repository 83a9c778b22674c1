/**
 * Where a session's CDP-backed WebMCP custom tools run (spec §14.3): one Node process
 * (webmcp-tool-child.mjs) in the session's jail, started like the REPL (runner-launch.ts) on the
 * first invocation and kept until the session ends. Invocations run concurrently in it; the
 * runner's start counts against the first call's time (not started in time: the tool did not
 * run, `status: Error`, and the start goes on for the next call). A tool
 * that does not answer in time is OutcomeUnknown (504) and ends the whole process group — a
 * synchronous endless loop would block every later invocation otherwise — so invocations
 * running beside it are OutcomeUnknown too; the next invocation starts a fresh process. Without
 * the jail there is no tool runner (CDP-backed tools are refused when they are added).
 */
import { randomUUID } from 'node:crypto';
import type { SessionHandle } from '../session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { OutcomeUnknown, type ToolResponse } from '../cdp/webmcp-hub.js';
import { endGroup } from './process-group.js';
import { runnerCdpUrl } from './runner-launch.js';
import { startRunnerProcess, type RunnerProcess } from './runner-process.js';
import { ToolRunnerMessage } from './runner-messages.js';
import type { RunnerServices } from './runner-services.js';
import type { Slot } from '../session/session-scope.js';

/** Marks tool runner processes (their title inside the jail). */
export const TOOL_RUNNER_MARKER = '--browserdeck-webmcp-tools';
/** Invocations one session may have running at once; more is 429 (each holds a request). */
export const MAX_RUNNING_TOOLS = 16;

type ToolProcess = RunnerProcess<typeof ToolRunnerMessage>;

export class WebMcpToolRunner {
  private proc?: ToolProcess;
  private starting?: Promise<ToolProcess>;
  private running = 0;
  private ended = false;

  constructor(
    private readonly handle: SessionHandle,
    private readonly services: RunnerServices,
  ) {}

  /**
   * Runs definition `index` of `source` on the tab `targetId`. Answers the tool's output as JSON
   * text (undefined when it returned nothing) or its error as `status: Error`; throws
   * OutcomeUnknown when no answer can be had.
   */
  async invoke(
    job: { source: string; index: number; targetId: string; input: Record<string, unknown> },
    timeoutMs: number,
    invocationId: string,
  ): Promise<{ json?: string } | ToolResponse> {
    if (this.running >= MAX_RUNNING_TOOLS)
      throw DomainError.tooMany(`${MAX_RUNNING_TOOLS} CDP-backed tools already run on this browser; try again when one has finished`, 'webmcp_busy', 1);
    this.running++;
    try {
      return await this.invokeNow(job, timeoutMs, invocationId);
    } finally {
      this.running--;
    }
  }

  private async invokeNow(job: { source: string; index: number; targetId: string; input: Record<string, unknown> }, timeoutMs: number, invocationId: string) {
    const deadline = Date.now() + timeoutMs;
    let proc: ToolProcess;
    let startTimer: NodeJS.Timeout | undefined;
    try {
      proc = await this.process();
      // The start counts against the call's time, but running out of it there is no reason to
      // kill a runner that is only starting (the next call uses it): the tool never ran.
      const late = new Promise<'late'>((r) => (startTimer = setTimeout(() => r('late'), Math.max(0, deadline - Date.now()))));
      if ((await Promise.race([proc.ready, late])) === 'late')
        return { status: 'Error', errorText: `the tool runner did not start within ${timeoutMs / 1000} s; the tool did not run` };
    } catch (err) {
      await this.kill();
      return { status: 'Error', errorText: `the tool runner did not start: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      clearTimeout(startTimer);
    }
    const { wsUrl } = await this.handle.ready();
    const callId = randomUUID();
    return new Promise<{ json?: string } | ToolResponse>((resolve, reject) => {
      const { child, channel } = proc;
      const done = () => {
        clearTimeout(timer);
        offMessage();
        child.off('exit', onExit);
      };
      const onMessage = (m: ToolRunnerMessage) => {
        if (m.type !== 'answer' || m.callId !== callId) return;
        done();
        if (m.ok) resolve(typeof m.json === 'string' ? { json: m.json } : {});
        else resolve({ status: 'Error', errorText: String(m.error).slice(0, 4000) });
      };
      const onExit = channel.guard(() => {
        done();
        reject(new OutcomeUnknown(this.ended ? 'the session ended' : (channel.failure ?? 'the tool runner ended before the tool answered'), invocationId));
      });
      const timer = setTimeout(
        () => {
          done();
          reject(new OutcomeUnknown(`no result within ${timeoutMs / 1000} s`, invocationId));
          // It may be stuck in a loop that would hold every later invocation: start afresh.
          if (this.proc === proc) void this.kill();
        },
        Math.max(0, deadline - Date.now()),
      );
      const offMessage = channel.on(onMessage);
      child.once('exit', onExit);
      // Gone already (its exit was before this call): answer now; a channel that is ending answers at its exit.
      if (child.exitCode !== null || child.signalCode !== null) return onExit();
      channel.send({ type: 'invoke', callId, ...job, cdpUrl: runnerCdpUrl(wsUrl, true) });
    });
  }

  private async process(): Promise<ToolProcess> {
    if (this.proc) return this.proc;
    if (this.ended) throw new Error('the session ended');
    const bwrap = await usableBwrap();
    if (!bwrap) throw new Error('CDP-backed tools need the bubblewrap jail, which is not usable on this engine');
    if (this.proc) return this.proc;
    // One start at a time: invocations arriving meanwhile wait for the same process.
    this.starting ??= startRunnerProcess(this.handle, {
      marker: `${TOOL_RUNNER_MARKER}=${this.handle.id}`,
      services: this.services,
      bwrap,
      script: 'webmcp-tool-child.mjs',
      messages: ToolRunnerMessage,
      what: 'the tool runner',
      ended: () => this.ended,
      onExit: () => {
        if (this.proc === proc) this.proc = undefined;
      },
    }).finally(() => (this.starting = undefined));
    const proc = await this.starting;
    if (this.ended) {
      await endGroup(proc.child);
      throw new Error('the session ended');
    }
    this.proc ??= proc;
    return this.proc;
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

/** The slot of a session's tool runner, wired with `services` once per engine (api/session-runners.ts). */
export function webMcpToolRunnerSlot(services: RunnerServices): Slot<WebMcpToolRunner> {
  return { name: 'webmcp-tool-runner', create: (scope) => new WebMcpToolRunner(scope.handle, services), close: (r) => r.end() };
}
