/**
 * What happens to a deployment after its code is in place: install dependencies when the app
 * ships a package.json without node_modules, load the entrypoint in an isolated app process
 * to discover its apps and actions, and record them as app versions. Every step reports log
 * events; the outcome is `running`, or `failed` with the reason in `status_reason`.
 */
import path from 'node:path';
import fs from 'node:fs';
import type { EngineContext } from '../../context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { AppEventLog } from '../apps/app-event-log.js';
import { appVersionDto, type AppVersions } from '../apps/app-versions.js';
import { baseAppEnv, engineModulesDir, startAppProcess } from '../../runtime/app-runtime/app-process.js';
import { appJailOf } from './app-jail-of.js';
import { needsInstall, npmInstall } from '../../runtime/app-runtime/npm-install.js';
import { REGION, type DeploymentRow } from './deployment-record.js';

const INSTALL_TIMEOUT_MS = 10 * 60_000;
const DISCOVERY_TIMEOUT_MS = 2 * 60_000;
/** Given to the app while it is only being loaded: `new Kernel()` at top level needs a key, no call may succeed. */
export const DISCOVERY_API_KEY = 'browserdeck-discovery-no-access';

export interface PipelineHooks {
  setStatus(id: string, status: DeploymentRow['status'], reason?: string): Promise<void>;
  /** Marks deployments that lost their last app version to a forced redeploy. */
  stopDeployments(ids: string[]): Promise<void>;
}

export async function runDeploymentPipeline(
  ctx: EngineContext,
  events: AppEventLog,
  apps: AppVersions,
  row: DeploymentRow,
  dir: string,
  signal: AbortSignal,
  hooks: PipelineHooks,
): Promise<void> {
  const log = (line: string): void => events.log(row.id, line);
  await hooks.setStatus(row.id, 'in_progress');
  if (needsInstall(dir)) {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir };
    for (const [k, v] of Object.entries(process.env)) if (/^npm_config_/i.test(k) && v !== undefined) env[k] = v;
    const r = await npmInstall(dir, { env, timeoutMs: INSTALL_TIMEOUT_MS, signal, onLine: log, jail: await appJailOf(ctx), modules: engineModulesDir() });
    if (signal.aborted) return;
    if (!r.ok) return hooks.setStatus(row.id, 'failed', `installing dependencies failed: ${r.reason}`);
  }
  const entry = path.resolve(dir, row.entrypoint_rel_path);
  if (!fs.existsSync(entry)) return hooks.setStatus(row.id, 'failed', `entrypoint '${row.entrypoint_rel_path}' does not exist in the deployment`);
  log(`loading ${row.entrypoint_rel_path} to discover its apps and actions`);
  const proc = await startAppProcess({
    jail: await appJailOf(ctx),
    cwd: dir,
    env: { ...baseAppEnv(dir), ...(JSON.parse(row.env_vars) as Record<string, string>), KERNEL_BASE_URL: ctx.publicUrl(), KERNEL_API_KEY: DISCOVERY_API_KEY },
    job: { mode: 'discover', entry },
    timeoutMs: DISCOVERY_TIMEOUT_MS,
    onLine: (_s, line) => log(line),
  });
  const onAbort = (): void => proc.kill();
  signal.addEventListener('abort', onAbort, { once: true });
  const result = await proc.done;
  signal.removeEventListener('abort', onAbort);
  if (signal.aborted) return;
  const a = result.answer;
  if (result.channelError) return hooks.setStatus(row.id, 'failed', result.channelError);
  if (!a) {
    const why = result.timedOut
      ? `did not finish loading within ${DISCOVERY_TIMEOUT_MS / 1000} s`
      : `exited before answering (${result.exitSignal ?? `exit code ${result.exitCode}`})`;
    return hooks.setStatus(row.id, 'failed', `the app process ${why}`);
  }
  if (!a.ok) return hooks.setStatus(row.id, 'failed', `loading ${row.entrypoint_rel_path} failed: ${a.error}`);
  const found = a.apps ?? [];
  if (found.length === 0)
    return hooks.setStatus(row.id, 'failed', `${row.entrypoint_rel_path} registered no apps (create one with kernel.app('name').action('name', handler))`);
  let recorded: Awaited<ReturnType<AppVersions['record']>>;
  try {
    const now = ctx.clock.now().toISOString();
    recorded = await ctx.db.transaction().execute((trx) => apps.record(trx, { ...row, force: row.force === 1 }, found, now));
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    events.append(row.id, { event: 'error', timestamp: events.now(), error: { code: err.code, message: err.message } });
    return hooks.setStatus(row.id, 'failed', err.message);
  }
  await hooks.stopDeployments(recorded.emptied);
  for (const v of recorded.rows) {
    log(
      `app '${v.app_name}' version '${v.version}': actions ${
        JSON.parse(v.actions)
          .map((x: { name: string }) => x.name)
          .join(', ') || '(none)'
      }`,
    );
    const dto = appVersionDto(v, row.env_vars);
    events.append(row.id, {
      event: 'app_version_summary',
      timestamp: events.now(),
      id: dto.id,
      app_name: dto.app_name,
      version: dto.version,
      region: REGION,
      actions: dto.actions,
      env_vars: dto.env_vars,
    });
  }
  await hooks.setStatus(row.id, 'running');
}
