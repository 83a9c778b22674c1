/**
 * `/playwright/execute` outside the engine's process: the code (TypeScript accepted) is
 * compiled here — syntax errors never reach an executor — and runs on one of the session's
 * executors (session-executors.ts; each a long-lived, jailed Node process with its own browser
 * connection, see executor.ts). With `trace`, the call records a Playwright trace into the
 * session's files and the answer names it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SessionHandle } from '../session/session-handle.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { compileUserCode } from './compile-user-code.js';
import type { CallResult } from './executor.js';
import { DEFAULT_EXECUTOR, TRACES_DIR, type SessionExecutors } from './session-executors.js';
import type { Slot } from '../session/session-scope.js';

export { RUNNER_MARKER } from './session-executors.js';

export interface ExecuteRequest {
  code: string;
  timeoutSec: number;
  executor?: string;
  trace?: boolean;
}

export type ExecuteResult = CallResult & { trace_path?: string };

/**
 * Executes code on the named executor (default: `default`) of the session's executors (`slot`,
 * sessionExecutorsSlot); never rejects for anything the code does. Throws ExecutorLimitError
 * for a 9th named executor.
 */
export async function executePlaywright(handle: SessionHandle, req: ExecuteRequest, slot: Slot<SessionExecutors>): Promise<ExecuteResult> {
  const executor = await handle.scope.get(slot).executor(req.executor ?? DEFAULT_EXECUTOR);
  const compiled = await compileUserCode(req.code);
  if ('error' in compiled) return { success: false, error: compiled.error, stdout: '', stderr: '' };
  // The session path of the trace; the jailed executor sees the session root as `/`.
  const trace = req.trace ? path.posix.join(TRACES_DIR, `${randomUUID()}.zip`) : undefined;
  const jailed = Boolean(await usableBwrap());
  // Without the jail, Node's permission model lets the executor write `<root>/tmp/traces` but not
  // make `<root>/tmp`; mkdir never follows a final symlink the session may have put there.
  if (trace && !jailed) await fs.mkdir(path.join(handle.dirs.root, 'tmp')).catch(() => {});
  const tracePath = trace && (jailed ? trace : path.join(handle.dirs.root, trace));
  const r = await executor.run({ js: compiled.js, timeoutSec: req.timeoutSec, tracePath });
  return trace ? { ...r, trace_path: trace } : r;
}
