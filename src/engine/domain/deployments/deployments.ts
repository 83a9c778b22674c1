/**
 * Deployments: `create` puts the code in `<dataDir>/deployments/<id>/` while the request
 * waits (a bad archive or entrypoint is a 400 at once), answers `queued`, and runs the rest
 * of the pipeline in the background; `delete` stops what still runs for it (pipeline,
 * invocations) and removes its directory, app versions and events. Deployments that were
 * under way when the engine stopped are failed at the next start.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import type { AppEventLog } from '../apps/app-event-log.js';
import type { AppVersions } from '../apps/app-versions.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import { copyLocalSource, extractDeploymentZip, resolveEntrypoint } from './deployment-source.js';
import { deploymentDto, isTerminalDeployment, type DeploymentDto, type DeploymentRow } from './deployment-record.js';
import { runDeploymentPipeline } from './deployment-pipeline.js';

export interface DeploymentInput {
  source: { kind: 'zip'; file: string; checksum: string } | { kind: 'local'; path: string };
  entrypoint?: string;
  envVars: Record<string, string>;
  version: string;
  force: boolean;
}

const ENTRYPOINT_GUESSES = ['index.ts', 'index.js', 'index.mjs', 'main.ts', 'main.js', 'src/index.ts', 'src/index.js'];

export class Deployments {
  private readonly pipelines = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopping = false;
  /** Set by the invocations feature: fails the running invocations of a deployment being deleted. */
  onDelete: (deploymentId: string) => Promise<void> = async () => {};

  constructor(
    private readonly ctx: EngineContext,
    private readonly events: AppEventLog,
    private readonly apps: AppVersions,
    private readonly nodeId: string,
  ) {}

  get root(): string {
    return path.join(this.ctx.config.dataDir, 'deployments');
  }

  dirOf(id: string): string {
    return path.join(this.root, id);
  }

  async create(auth: AuthContext, input: DeploymentInput): Promise<DeploymentDto> {
    if (this.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    const id = newId();
    const dir = this.dirOf(id);
    let entrypoint: string;
    try {
      if (input.source.kind === 'zip') await extractDeploymentZip(input.source.file, dir);
      else await copyLocalSource(input.source.path, dir);
      entrypoint = await this.entrypointOf(dir, input.entrypoint);
    } catch (err) {
      await fsp.rm(dir, { recursive: true, force: true });
      throw err;
    }
    const now = this.ctx.clock.now().toISOString();
    const row: DeploymentRow = {
      id,
      org_id: auth.orgId,
      project_id: auth.projectId,
      status: 'queued',
      status_reason: null,
      entrypoint_rel_path: entrypoint,
      env_vars: JSON.stringify(input.envVars),
      version: input.version,
      force: input.force ? 1 : 0,
      source_type: input.source.kind === 'zip' ? 'file' : 'local',
      source_checksum: input.source.kind === 'zip' ? input.source.checksum : null,
      local_path: input.source.kind === 'local' ? input.source.path : null,
      node_id: this.nodeId,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.ctx.db.insertInto('deployments').values(row).execute();
    this.events.open(id);
    this.events.append(id, { event: 'deployment_state', timestamp: now, deployment: deploymentDto(row) });
    this.ctx.changes.upsert(row.org_id, 'deployment', row.id, row.project_id);
    const abort = new AbortController();
    const done = runDeploymentPipeline(this.ctx, this.events, this.apps, row, dir, abort.signal, {
      setStatus: (i, s, r) => this.setStatus(i, s, r),
      stopDeployments: (ids) => this.stopDeployments(ids),
    })
      .catch(async (err) => {
        this.ctx.log.error({ err }, 'deployment pipeline failed');
        await this.setStatus(id, 'failed', `internal error: ${(err as Error).message}`).catch(() => {});
      })
      .catch(() => {})
      .finally(() => this.pipelines.delete(id));
    this.pipelines.set(id, { abort, done });
    return deploymentDto(row);
  }

  private async entrypointOf(dir: string, given: string | undefined): Promise<string> {
    if (given) {
      const file = resolveEntrypoint(dir, given);
      const st = await fsp.stat(file).catch(() => null);
      if (!st?.isFile()) throw DomainError.invalidField('entrypoint_rel_path', `'${given}' is not a file in the uploaded source`);
      return path.relative(dir, file).split(path.sep).join('/');
    }
    for (const guess of ENTRYPOINT_GUESSES) if ((await fsp.stat(path.join(dir, guess)).catch(() => null))?.isFile()) return guess;
    throw DomainError.invalidField('entrypoint_rel_path', `is required (none of ${ENTRYPOINT_GUESSES.join(', ')} exists)`);
  }

  /** Records a status change and reports it as a `deployment_state` event; terminal states end the event log. */
  async setStatus(id: string, status: DeploymentRow['status'], reason?: string): Promise<void> {
    const now = this.ctx.clock.now().toISOString();
    await this.ctx.db
      .updateTable('deployments')
      .set({ status, status_reason: reason ?? null, updated_at: now })
      .where('id', '=', id)
      .execute();
    const row = await this.ctx.db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return;
    if (status === 'failed' && reason) this.events.log(id, `deployment failed: ${reason}`);
    this.events.append(id, { event: 'deployment_state', timestamp: now, deployment: deploymentDto(row) });
    this.ctx.changes.upsert(row.org_id, 'deployment', row.id, row.project_id);
    if (isTerminalDeployment(status)) await this.events.close(id);
  }

  private async stopDeployments(ids: string[]): Promise<void> {
    for (const id of ids) await this.setStatus(id, 'stopped', 'every app version of this deployment was replaced by a forced redeploy');
  }

  async get(auth: AuthContext, id: string): Promise<DeploymentRow> {
    const row = await this.ctx.db
      .selectFrom('deployments')
      .selectAll()
      .where('id', '=', id)
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw DomainError.notFound('deployment', id);
    return row;
  }

  async list(auth: AuthContext, q: { app_name?: string; app_version?: string; query?: string; offset: number; limit: number }): Promise<DeploymentRow[]> {
    if (q.app_version && !q.app_name) throw DomainError.invalidField('app_version', 'needs app_name');
    let sel = this.ctx.db
      .selectFrom('deployments')
      .selectAll()
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('deleted_at', 'is', null);
    if (q.app_name) {
      let sub = this.ctx.db.selectFrom('app_versions').select('deployment_id').where('project_id', '=', auth.projectId).where('app_name', '=', q.app_name);
      if (q.app_version) sub = sub.where('version', '=', q.app_version);
      sel = sel.where('id', 'in', sub);
    }
    if (q.query) {
      const needle = q.query;
      const byApp = this.ctx.db
        .selectFrom('app_versions')
        .select('deployment_id')
        .where('project_id', '=', auth.projectId)
        .where(containsInsensitive('app_name', needle));
      sel = sel.where((eb) =>
        eb.or([eb('id', '=', needle), eb('version', '=', needle), containsInsensitive('entrypoint_rel_path', needle), eb('id', 'in', byApp)]),
      );
    }
    return sel
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    const row = await this.get(auth, id);
    const pipeline = this.pipelines.get(id);
    pipeline?.abort.abort();
    await pipeline?.done;
    await this.onDelete(row.id);
    await this.apps.deleteForDeployment(row.id);
    const now = this.ctx.clock.now().toISOString();
    await this.ctx.db
      .updateTable('deployments')
      .set({ deleted_at: now, updated_at: now, status: isTerminalDeployment(row.status) ? row.status : 'stopped' })
      .where('id', '=', row.id)
      .execute();
    await this.events.deleteOwner(row.id);
    this.ctx.changes.delete(row.org_id, 'deployment', row.id, row.project_id);
    await fsp.rm(this.dirOf(row.id), { recursive: true, force: true });
  }

  /** At start: deployments this node left half-done fail (their pipeline died with the engine). */
  async recover(): Promise<void> {
    const now = this.ctx.clock.now().toISOString();
    await this.ctx.db
      .updateTable('deployments')
      .set({ status: 'failed', status_reason: 'the engine stopped before the deployment finished', updated_at: now })
      .where('node_id', '=', this.nodeId)
      .where('status', 'in', ['queued', 'in_progress'])
      .execute();
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    const running = [...this.pipelines.entries()];
    for (const [, p] of running) p.abort.abort();
    await Promise.all(running.map(([, p]) => p.done));
    for (const [id] of running) await this.setStatus(id, 'failed', 'the engine stopped before the deployment finished').catch(() => {});
  }
}
