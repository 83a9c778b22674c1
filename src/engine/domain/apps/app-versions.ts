/**
 * App versions: what a deployment registered (app name + the deployment's version label +
 * its actions). `GET /apps` lists them; invocations resolve `app_name`/`version` through them.
 * One app version per (project, app, version): a redeploy of the same pair needs `force`,
 * which replaces it; a deployment left without app versions is `stopped`.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database, AppVersionTable } from '../../store/schema.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import { REGION, redactEnv } from '../deployments/deployment-record.js';

export type AppVersionRow = AppVersionTable;

export interface AppVersionDto {
  id: string;
  app_name: string;
  version: string;
  deployment: string;
  region: typeof REGION;
  env_vars: Record<string, string>;
  actions: Array<{ name: string }>;
}

export const DEFAULT_VERSION = 'latest';

export class AppVersions {
  constructor(private readonly db: Kysely<Database>) {}

  async list(auth: AuthContext, q: { app_name?: string; version?: string; query?: string; offset: number; limit: number }): Promise<AppVersionDto[]> {
    let sel = this.db
      .selectFrom('app_versions')
      .innerJoin('deployments', 'deployments.id', 'app_versions.deployment_id')
      .selectAll('app_versions')
      .select('deployments.env_vars')
      .where('app_versions.org_id', '=', auth.orgId)
      .where('app_versions.project_id', '=', auth.projectId);
    if (q.app_name) sel = sel.where('app_versions.app_name', '=', q.app_name);
    if (q.version) sel = sel.where('app_versions.version', '=', q.version);
    if (q.query) sel = sel.where(containsInsensitive('app_versions.app_name', q.query));
    const rows = await sel
      .orderBy('app_versions.created_at', 'desc')
      .orderBy('app_versions.id')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
    return rows.map((r) => appVersionDto(r, r.env_vars));
  }

  /**
   * The app version an invocation runs. `latest` means the version labelled "latest" when
   * there is one, else the newest deployed version of the app.
   */
  async resolve(auth: AuthContext, appName: string, version: string): Promise<AppVersionRow> {
    const base = this.db
      .selectFrom('app_versions')
      .selectAll()
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('app_name', '=', appName);
    let row = await base.where('version', '=', version).executeTakeFirst();
    if (!row && version === DEFAULT_VERSION) row = await base.orderBy('created_at', 'desc').executeTakeFirst();
    if (row) return row;
    if (!(await base.select('id').executeTakeFirst())) throw new DomainError(404, 'app_not_found', `app '${appName}' is not deployed in this project`);
    throw new DomainError(404, 'app_version_not_found', `app '${appName}' has no version '${version}'`);
  }

  /**
   * Records the apps a deployment registered. Without `force` an existing (app, version) is a
   * conflict; with it the old app version is replaced. Returns the new rows and the ids of
   * deployments that lost their last app version (to be marked stopped by the caller).
   */
  async record(
    trx: Transaction<Database>,
    dep: { id: string; org_id: string; project_id: string; version: string; force: boolean },
    apps: Array<{ name: string; actions: Array<{ name: string }> }>,
    now: string,
  ): Promise<{ rows: AppVersionRow[]; emptied: string[] }> {
    const touched = new Set<string>();
    const rows: AppVersionRow[] = [];
    for (const app of apps) {
      const existing = await trx
        .selectFrom('app_versions')
        .select(['id', 'deployment_id'])
        .where('project_id', '=', dep.project_id)
        .where('app_name', '=', app.name)
        .where('version', '=', dep.version)
        .executeTakeFirst();
      if (existing) {
        if (!dep.force)
          throw DomainError.conflict(
            `app '${app.name}' version '${dep.version}' is already deployed (deployment ${existing.deployment_id}); deploy with force=true to replace it`,
            'app_version_exists',
          );
        await trx.deleteFrom('app_versions').where('id', '=', existing.id).execute();
        touched.add(existing.deployment_id);
      }
      const row: AppVersionRow = {
        id: newId(),
        org_id: dep.org_id,
        project_id: dep.project_id,
        app_name: app.name,
        version: dep.version,
        deployment_id: dep.id,
        actions: JSON.stringify(app.actions.map((a) => ({ name: a.name }))),
        created_at: now,
      };
      await trx.insertInto('app_versions').values(row).execute();
      rows.push(row);
    }
    const emptied: string[] = [];
    for (const id of touched) {
      if (id === dep.id) continue;
      const left = await trx.selectFrom('app_versions').select('id').where('deployment_id', '=', id).executeTakeFirst();
      if (!left) emptied.push(id);
    }
    return { rows, emptied };
  }

  async deleteForDeployment(deploymentId: string): Promise<void> {
    await this.db.deleteFrom('app_versions').where('deployment_id', '=', deploymentId).execute();
  }
}

export function appVersionDto(row: AppVersionRow, envJson: string): AppVersionDto {
  return {
    id: row.id,
    app_name: row.app_name,
    version: row.version,
    deployment: row.deployment_id,
    region: REGION,
    env_vars: redactEnv(envJson),
    actions: JSON.parse(row.actions) as Array<{ name: string }>,
  };
}
