/**
 * What a session's runner children (executors, the REPL, the WebMCP tool runner) are given from
 * outside code-runner/: the host paths their jail masks and who answers their `webmcp.*`
 * requests. Declared here and wired once above both code-runner/ and webmcp/
 * (api/session-runners.ts), so that code-runner/ never reaches up into webmcp/ — whose
 * CDP-backed custom tools run in a runner of this folder.
 */
import type { TSchema } from '@sinclair/typebox';
import type { SessionHandle } from '../session/session-handle.js';
import type { RunnerChannel } from '../sandbox/runner-channel.js';
import type { WebMcpRequestMessage } from './runner-messages.js';

export interface RunnerServices {
  /** Host paths to mask should they lie under a directory the jail binds (the engine's data dir). */
  readonly hide: string[];
  /**
   * Answers the child's `webmcp.*` requests for `handle`'s session on `channel`. `accepts`:
   * whether a request may run now (an executor only serves the call that is running).
   */
  serveWebMcp<S extends TSchema>(channel: RunnerChannel<S>, handle: SessionHandle, accepts?: (m: WebMcpRequestMessage) => boolean): void;
}
