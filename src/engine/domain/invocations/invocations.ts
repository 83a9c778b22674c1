/**
 * Invocations: `create` checks the app, action and payload, takes a slot under the project's
 * `max_concurrent_invocations` (429 when none is free), records the invocation with a fresh
 * invocation key, and runs the action in its own app process (invocation-run.ts). Every
 * state change is an `invocation_state` event. Reaching a terminal state — result, throw,
 * timeout, PATCH, deleted deployment, engine stop — happens exactly once (a conditional
 * update) and then ends the process tree, revokes the key, ends the invocation's browsers
 * and closes its event log.
 */
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import type { AppEventLog } from '../apps/app-event-log.js';
import { DEFAULT_VERSION, type AppVersions } from '../apps/app-versions.js';
import type { LimitsService } from '../org/limits.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { AppProcess } from '../../runtime/app-runtime/app-process.js';
import { InvocationKeys, newInvocationKey } from './invocation-keys.js';
import { invocationDto, isTerminalInvocation, type InvocationRow, type InvocationStatus } from './invocation-record.js';
import type { RecoveryReport } from '../recovery-report.js';
import type { EndCause } from '../sessions/session-end-cause.js';
import type { Static } from '@sinclair/typebox';
import type { InvocationCreateSchema } from '../../../shared/wire/apps.js';

/** How long a synchronous `POST /invocations` waits for the result before answering the running invocation. */
export const SYNC_WAIT_MS = 100_000;
/** Timeout of an invocation when `async_timeout_seconds` does not apply or is absent. */
export const DEFAULT_TIMEOUT_SECONDS = 900;
const RETRY_AFTER_SECONDS = 5;

/** The body of `POST /invocations`, as the wire schema validated it. */
export type CreateInvocationBody = Static<typeof InvocationCreateSchema>;

export interface InvocationBrowsers {
  deleteByInvocation(auth: AuthContext, invocationId: string, cause?: EndCause): Promise<number>;
}

interface Live {
  proc?: AppProcess;
  keyHash: string;
  done: Promise<void>;
  resolveDone: () => void;
}

export interface TerminalUpdate {
  status: Extract<InvocationStatus, 'succeeded' | 'failed'>;
  output?: string | null;
  reason?: string | null;
  error?: { code: string; message: string };
}

export class Invocations {
  readonly keys: InvocationKeys;
  private readonly live = new Map<string, Live>();
  /** Runner promises, awaited at stop so nothing touches the store after it closes. */
  private readonly runs = new Set<Promise<void>>();
  private stopping = false;
  /** Starts the action's process (invocation-run.ts); set by the feature. */
  runner: (row: InvocationRow, key: string) => Promise<void> = async () => {};

  constructor(
    private readonly ctx: EngineContext,
    private readonly events: AppEventLog,
    private readonly apps: AppVersions,
    private readonly limits: LimitsService,
    private readonly nodeId: string,
    private readonly browsers: () => InvocationBrowsers | undefined,
    private readonly recovery: RecoveryReport,
  ) {
    this.keys = new InvocationKeys(ctx.db);
  }

  private now(): string {
    return this.ctx.clock.now().toISOString();
  }

  async create(auth: AuthContext, body: CreateInvocationBody): Promise<{ row: InvocationRow; accepted: boolean }> {
    if (this.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    if (body.payload !== undefined) {
      try {
        JSON.parse(body.payload);
      } catch (err) {
        throw DomainError.invalidField('payload', `must be JSON text: ${(err as Error).message}`);
      }
    }
    const version = body.version || DEFAULT_VERSION;
    const appVersion = await this.apps.resolve(auth, body.app_name, version);
    const actions = JSON.parse(appVersion.actions) as Array<{ name: string }>;
    if (!actions.some((a) => a.name === body.action_name))
      throw new DomainError(
        404,
        'action_not_found',
        `app '${body.app_name}' version '${appVersion.version}' has no action '${body.action_name}' (it has: ${actions.map((a) => a.name).join(', ') || 'none'})`,
      );
    const timeout = body.async ? (body.async_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) : DEFAULT_TIMEOUT_SECONDS;
    const { key, hash } = newInvocationKey();
    const row: InvocationRow = {
      id: newId(),
      org_id: auth.orgId,
      project_id: auth.projectId,
      app_name: appVersion.app_name,
      action_name: body.action_name,
      version: appVersion.version,
      deployment_id: appVersion.deployment_id,
      status: 'queued',
      status_reason: null,
      payload: body.payload ?? null,
      output: null,
      is_async: body.async ? 1 : 0,
      timeout_seconds: timeout,
      key_hash: hash,
      node_id: this.nodeId,
      started_at: this.now(),
      finished_at: null,
    };
    const cap = await this.limits.projectInvocationCap(auth.orgId, auth.projectId);
    await this.ctx.db.transaction().execute(async (trx) => {
      if (cap !== null) {
        // Serializes concurrent creates of one project on PostgreSQL (SQLite transactions already are).
        if (this.ctx.store.dialect === 'postgres') await trx.selectFrom('projects').select('id').where('id', '=', auth.projectId).forUpdate().execute();
        const r = await trx
          .selectFrom('invocations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('project_id', '=', auth.projectId)
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow();
        if (Number(r.n) >= cap)
          throw DomainError.tooMany(
            `this project already runs ${cap} invocations (max_concurrent_invocations); retry when one finishes`,
            'invocation_limit_reached',
            RETRY_AFTER_SECONDS,
          );
      }
      await trx.insertInto('invocations').values(row).execute();
    });
    const email = (await this.ctx.db.selectFrom('orgs').select('admin_email').where('id', '=', auth.orgId).executeTakeFirst())?.admin_email ?? '';
    this.keys.activate(hash, {
      orgId: auth.orgId,
      strategy: 'invocation_key',
      userId: `invocation:${row.id}`,
      email,
      projectId: auth.projectId,
      invocationId: row.id,
    });
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    this.live.set(row.id, { keyHash: hash, done, resolveDone });
    this.events.open(row.id);
    this.stateEvent(row);
    const run = this.runner(row, key)
      .catch(async (err) => {
        this.ctx.log.error({ err }, 'invocation runner failed');
        await this.finish(row.id, { status: 'failed', reason: `internal error: ${(err as Error).message}` });
      })
      .catch(() => {})
      .finally(() => this.runs.delete(run));
    this.runs.add(run);
    if (body.async) return { row, accepted: true };
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((r) => (timer = setTimeout(r, SYNC_WAIT_MS)))]);
    clearTimeout(timer);
    return { row: await this.row(row.id), accepted: false };
  }

  private stateEvent(row: InvocationRow): void {
    this.ctx.changes.upsert(row.org_id, 'invocation', row.id, row.project_id);
    this.events.append(row.id, { event: 'invocation_state', timestamp: this.now(), invocation: invocationDto(row) });
  }

  async row(id: string): Promise<InvocationRow> {
    return this.ctx.db.selectFrom('invocations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** queued → running, once the process is about to start. */
  async markRunning(id: string, proc: AppProcess): Promise<boolean> {
    const live = this.live.get(id);
    if (!live) {
      proc.kill();
      return false;
    }
    live.proc = proc;
    const r = await this.ctx.db.updateTable('invocations').set({ status: 'running' }).where('id', '=', id).where('status', '=', 'queued').executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    this.stateEvent(await this.row(id));
    return true;
  }

  log(id: string, line: string): void {
    this.events.log(id, line);
  }

  /** Moves a non-terminal invocation to its terminal state; false when it already was terminal. */
  async finish(id: string, u: TerminalUpdate): Promise<boolean> {
    const finished = this.now();
    const set: Partial<InvocationRow> = { status: u.status, finished_at: finished, status_reason: u.reason ?? null };
    if (u.output !== undefined) set.output = u.output;
    const r = await this.ctx.db.updateTable('invocations').set(set).where('id', '=', id).where('status', 'in', ['queued', 'running']).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    const live = this.live.get(id);
    this.live.delete(id);
    live?.proc?.kill();
    const row = await this.row(id);
    this.keys.revoke(row.key_hash);
    if (u.error) this.events.append(id, { event: 'error', timestamp: finished, error: u.error });
    this.stateEvent(row);
    await this.events.close(id);
    await this.endBrowsers(row);
    live?.resolveDone();
    return true;
  }

  private async endBrowsers(row: InvocationRow): Promise<void> {
    const browsers = this.browsers();
    if (!browsers) return;
    try {
      // Ended by the invocation's end, not by a caller: the sessions say so.
      await browsers.deleteByInvocation(projectAuth(row), row.id, { reason: 'invocation_ended', by: `invocation:${row.id}` });
    } catch (err) {
      this.ctx.log.error({ err }, 'ending the browsers of an invocation failed');
    }
  }

  async get(auth: AuthContext, id: string): Promise<InvocationRow> {
    const row = await this.ctx.db
      .selectFrom('invocations')
      .selectAll()
      .where('id', '=', id)
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .executeTakeFirst();
    if (!row) throw DomainError.notFound('invocation', id);
    return row;
  }

  async list(
    auth: AuthContext,
    q: {
      action_name?: string;
      app_name?: string;
      deployment_id?: string;
      query?: string;
      since?: Date;
      status?: InvocationStatus;
      version?: string;
      offset: number;
      limit: number;
    },
  ): Promise<InvocationRow[]> {
    let sel = this.ctx.db.selectFrom('invocations').selectAll().where('org_id', '=', auth.orgId).where('project_id', '=', auth.projectId);
    if (q.action_name) sel = sel.where('action_name', '=', q.action_name);
    if (q.app_name) sel = sel.where('app_name', '=', q.app_name);
    if (q.deployment_id) sel = sel.where('deployment_id', '=', q.deployment_id);
    if (q.status) sel = sel.where('status', '=', q.status);
    if (q.version) sel = sel.where('version', '=', q.version);
    if (q.since) sel = sel.where('started_at', '>=', q.since.toISOString());
    if (q.query) {
      const needle = q.query;
      sel = sel.where((eb) => eb.or([eb('id', '=', needle), containsInsensitive('app_name', needle), containsInsensitive('action_name', needle)]));
    }
    return sel
      .orderBy('started_at', 'desc')
      .orderBy('id')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  /** PATCH: a caller settles a queued or running invocation (its process is ended). */
  async update(auth: AuthContext, id: string, body: { status: 'succeeded' | 'failed'; output?: string }): Promise<InvocationRow> {
    const row = await this.get(auth, id);
    if (body.output !== undefined) {
      try {
        JSON.parse(body.output);
      } catch (err) {
        throw DomainError.invalidField('output', `must be JSON text: ${(err as Error).message}`);
      }
    }
    if (isTerminalInvocation(row.status))
      throw DomainError.conflict(`invocation '${id}' already ${row.status}; only queued or running invocations can be updated`, 'invocation_finished');
    const done = await this.finish(row.id, {
      status: body.status,
      output: body.output,
      reason: body.status === 'failed' ? 'set to failed through the API' : null,
    });
    if (!done) throw DomainError.conflict(`invocation '${id}' finished meanwhile`, 'invocation_finished');
    return this.row(row.id);
  }

  /** The deployment is being deleted: its unfinished invocations fail. */
  async failForDeployment(deploymentId: string): Promise<void> {
    const rows = await this.ctx.db
      .selectFrom('invocations')
      .select('id')
      .where('deployment_id', '=', deploymentId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    for (const r of rows) await this.finish(r.id, { status: 'failed', reason: 'the deployment was deleted' });
  }

  /** At start: invocations this node was running when it stopped cannot finish any more. */
  async recover(): Promise<void> {
    const rows = await this.ctx.db
      .selectFrom('invocations')
      .select('id')
      .where('node_id', '=', this.nodeId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    const now = this.now();
    for (const r of rows) {
      await this.ctx.db
        .updateTable('invocations')
        .set({ status: 'failed', status_reason: 'the engine stopped while the invocation ran', finished_at: now })
        .where('id', '=', r.id)
        .where('status', 'in', ['queued', 'running'])
        .execute();
    }
    this.recovery.note('invocations (failed: the engine stopped while they ran)', rows.length);
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.live.keys()].map((id) => this.finish(id, { status: 'failed', reason: 'the engine stopped while the invocation ran' }).catch(() => false)),
    );
    await Promise.all([...this.runs]);
  }

  isLiveHere(id: string): boolean {
    return this.live.has(id);
  }
}

/** Acts in an invocation's project on behalf of the engine (ending its browsers). */
export function projectAuth(row: { org_id: string; project_id: string }): AuthContext {
  return { orgId: row.org_id, projectId: row.project_id, credentialProjectId: row.project_id, strategy: 'api_key', userId: 'engine', email: '' };
}
