/**
 * The one place the session's runner children (code-runner/: Playwright executors, the REPL,
 * the WebMCP tool runner) meet what they serve (webmcp/): each runner answers its child's
 * `webmcp.*` requests through `RunnerServices`, and a CDP-backed custom tool runs in the tool
 * runner, so the two folders only see each other through values wired here (issue 26: the
 * import circle code-runner ↔ webmcp is gone). The slots carry engine-level settings (the data
 * dir the jails mask), so they are made once per engine; the session-code and session-webmcp
 * features share them.
 */
import type { EngineContext } from '../context.js';
import type { Slot } from '../runtime/session/session-scope.js';
import type { RunnerServices } from '../runtime/code-runner/runner-services.js';
import { sessionExecutorsSlot, type SessionExecutors } from '../runtime/code-runner/session-executors.js';
import { sessionReplSlot, type SessionRepl } from '../runtime/code-runner/session-repl.js';
import { webMcpToolRunnerSlot, type WebMcpToolRunner } from '../runtime/code-runner/webmcp-tool-runner.js';
import { serveWebMcp } from '../runtime/webmcp/webmcp-bridge.js';

export interface SessionRunners {
  executors: Slot<SessionExecutors>;
  repl: Slot<SessionRepl>;
  toolRunner: Slot<WebMcpToolRunner>;
}

/** Per engine: features register once per engine, and tests run several engines in one process. */
const byEngine = new WeakMap<EngineContext, SessionRunners>();

/** The engine's runner slots, made on the first call. */
export function sessionRunners(ctx: EngineContext): SessionRunners {
  let runners = byEngine.get(ctx);
  if (!runners) {
    const services: RunnerServices = {
      hide: [ctx.config.dataDir],
      serveWebMcp: (channel, handle, accepts) => serveWebMcp(channel, handle, () => handle.scope.get(toolRunner), accepts),
    };
    const toolRunner = webMcpToolRunnerSlot(services);
    runners = { executors: sessionExecutorsSlot(services), repl: sessionReplSlot(services), toolRunner };
    byEngine.set(ctx, runners);
  }
  return runners;
}
