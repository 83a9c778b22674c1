/**
 * Runs one invocation's action in its own app process: the deployment's directory and
 * environment variables, plus `KERNEL_BASE_URL` (this engine) and `KERNEL_API_KEY` (the
 * invocation's own key), so `new Kernel()` inside the action talks to this engine as the
 * invocation. Output lines become `log` events; the return value becomes `output`, a throw
 * or a timeout a `failed` invocation with the reason in `status_reason`.
 */
import path from 'node:path';
import type { EngineContext } from '../../context.js';
import { baseAppEnv, startAppProcess } from '../../runtime/app-runtime/app-process.js';
import { appJailOf } from '../deployments/app-jail-of.js';
import type { Deployments } from '../deployments/deployments.js';
import type { InvocationRow } from './invocation-record.js';
import type { Invocations } from './invocations.js';

/** Larger return values fail the invocation instead of being stored. */
export const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;

export function invocationRunner(ctx: EngineContext, invocations: Invocations, deployments: Deployments) {
  return async (row: InvocationRow, key: string): Promise<void> => {
    const dep = await ctx.db.selectFrom('deployments').selectAll().where('id', '=', row.deployment_id).executeTakeFirst();
    if (!dep || dep.deleted_at) {
      await invocations.finish(row.id, { status: 'failed', reason: 'the deployment of this app version no longer exists' });
      return;
    }
    const dir = deployments.dirOf(dep.id);
    const proc = await startAppProcess({
      jail: await appJailOf(ctx),
      cwd: dir,
      env: { ...baseAppEnv(dir), ...(JSON.parse(dep.env_vars) as Record<string, string>), KERNEL_BASE_URL: ctx.publicUrl(), KERNEL_API_KEY: key },
      job: {
        mode: 'invoke',
        entry: path.resolve(dir, dep.entrypoint_rel_path),
        app: row.app_name,
        action: row.action_name,
        payload: row.payload,
        context: { invocation_id: row.id },
      },
      timeoutMs: row.timeout_seconds * 1000,
      onLine: (_stream, line) => invocations.log(row.id, line),
    });
    if (!(await invocations.markRunning(row.id, proc))) {
      proc.kill();
      return;
    }
    const r = await proc.done;
    const a = r.answer;
    if (r.channelError) {
      await invocations.finish(row.id, { status: 'failed', reason: r.channelError, error: { code: 'invalid_runner_message', message: r.channelError } });
    } else if (r.timedOut && !a) {
      await invocations.finish(row.id, {
        status: 'failed',
        reason: `timed out after ${row.timeout_seconds} s; the action's processes were ended`,
        error: { code: 'timeout', message: `the invocation timed out after ${row.timeout_seconds} s` },
      });
    } else if (!a) {
      const how = r.exitSignal ? `was ended by ${r.exitSignal}` : `exited with code ${r.exitCode}`;
      await invocations.finish(row.id, {
        status: 'failed',
        reason: `the action's process ${how} before returning`,
        error: { code: 'process_exited', message: `the action's process ${how}` },
      });
    } else if (!a.ok) {
      await invocations.finish(row.id, {
        status: 'failed',
        reason: a.error ?? 'the action failed',
        error: { code: a.phase === 'action' ? 'action_failed' : 'app_load_failed', message: a.error ?? 'the action failed' },
      });
    } else if ((a.output?.length ?? 0) > MAX_OUTPUT_CHARS) {
      await invocations.finish(row.id, { status: 'failed', reason: `the action's return value is larger than ${MAX_OUTPUT_CHARS} characters of JSON` });
    } else {
      await invocations.finish(row.id, { status: 'succeeded', output: a.output ?? null });
    }
  };
}
