/**
 * Replays of sessions (wire §3.13): starts a `ReplayRecorder` per recording, keeps its row in
 * the `replays` table in step with the recorder's state, stops every recording of a session
 * when it ends (the file is finished, not lost) and all of them at engine stop, and deletes
 * recordings older than the retention — files live under `<dataDir>/replays/<session>/`, so
 * they outlive the session directory.
 */
import { jailStatus } from '../../runtime/sandbox/jail-status.js';
import { helperJail, type HelperJail } from '../../runtime/sandbox/helper-jail.js';
import { createPidsGroup, nprocLimit, type PidsGroup } from '../../runtime/sandbox/pids-group.js';
import { tenantsCpuGroup } from '../../runtime/sandbox/cpu-group.js';
import { ensureTraversable, jailUserOf, own } from '../../runtime/sandbox/jail-user.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database, ReplayTable } from '../../store/schema.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import type { Static } from '@sinclair/typebox';
import type { ReplayStartSchema } from '../../../shared/wire/session-replays.js';
import { ReplayRecorder, type CursorView, type ReplayState } from '../../runtime/recorder/replay-recorder.js';
import { subscribeScreencast } from '../../runtime/screencast.js';

export interface ReplayServiceOptions {
  db: Kysely<Database>;
  dataDir: string;
  nodeId: string;
  now(): Date;
  retentionMs: number;
  sweepIntervalMs: number;
  /** Above this a recording would need a GPU encoder (the official API says the same). */
  maxFramerate: number;
  defaultFramerate: number;
  maxDurationSeconds: number;
  cursor(sessionId: string): CursorView;
  log(sessionId: string, chunk: string): void;
  /** Run ffmpeg on the host even where bubblewrap works (the engine's --insecure-no-jail). */
  insecureNoJail?: boolean;
  /** Host paths masked in ffmpeg's jail (the data dir). */
  hide?: string[];
  /** Telemetry/system hook: the recorder died while recording. */
  onCrash?(sessionId: string): void;
  /** A recording is ready or failed (its row written): compose.ts announces it on the change feed as a change of its session. */
  onSettled?(handle: SessionHandle): void;
}

/** The body of `POST /browsers/{id}/replays`, as the wire schema validated it. */
export type StartBody = Static<typeof ReplayStartSchema>;

export class ReplayService {
  private readonly active = new Map<string, { sessionId: string; recorder: ReplayRecorder }>();
  private readonly hooked = new WeakSet<SessionHandle>();
  private readonly sweeper: NodeJS.Timeout;
  private stopped = false;

  /** How long a finished recording is kept. */
  get retentionMs(): number {
    return this.o.retentionMs;
  }

  constructor(private readonly o: ReplayServiceOptions) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), o.sweepIntervalMs);
    this.sweeper.unref();
  }

  /**
   * ffmpeg's jail: as the session's jail user (jail-user.ts), owning the session's replay dir, in
   * a pids group of its own (`pids`): the finishing pass may outlive the session and its groups.
   */
  private async ffmpegJail(bwrap: string, handle: SessionHandle, pids: PidsGroup | undefined): Promise<HelperJail> {
    const writable = path.join(this.dir, handle.id);
    const user = jailUserOf(handle.dirs.root);
    if (user) {
      // Search only for others (an older engine made it 0755, listing every session's recordings).
      await fsp.chmod(this.dir, 0o700);
      await ensureTraversable(writable, [this.dir, path.dirname(this.dir)]);
      await own(user, writable);
    }
    return helperJail(bwrap, {
      writable,
      hide: this.o.hide ?? [],
      user,
      groups: { procs: [pids?.procsFile, tenantsCpuGroup().procsFile], nproc: nprocLimit() },
    });
  }

  get dir(): string {
    return path.join(this.o.dataDir, 'replays');
  }

  fileOf(row: Pick<ReplayTable, 'file'>): string {
    return path.join(this.dir, row.file);
  }

  state(replayId: string): ReplayState | undefined {
    return this.active.get(replayId)?.recorder.state;
  }

  recorder(replayId: string): ReplayRecorder | undefined {
    return this.active.get(replayId)?.recorder;
  }

  async start(handle: SessionHandle, body: StartBody): Promise<ReplayTable> {
    if (this.stopped) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    if (body.record_audio)
      throw DomainError.unprocessable('record_audio is not supported by this engine: sessions have no audio device to record', 'audio_unsupported');
    const framerate = body.framerate ?? this.o.defaultFramerate;
    if (!Number.isInteger(framerate) || framerate < 1 || framerate > this.o.maxFramerate) {
      throw DomainError.invalidField(
        'framerate',
        `must be an integer from 1 to ${this.o.maxFramerate}; higher rates need a GPU encoder, which this engine does not have`,
      );
    }
    const maxSeconds = body.max_duration_in_seconds ?? this.o.maxDurationSeconds;
    if (!Number.isInteger(maxSeconds) || maxSeconds < 1 || maxSeconds > this.o.maxDurationSeconds)
      throw DomainError.invalidField('max_duration_in_seconds', `must be an integer from 1 to ${this.o.maxDurationSeconds}`);
    if ([...this.active.values()].some((a) => a.sessionId === handle.id && a.recorder.state === 'recording')) {
      throw DomainError.conflict('this session is already being recorded; stop that replay first', 'replay_in_progress');
    }
    const id = newId();
    const file = path.join(handle.id, `${id}.mp4`);
    // The engine's alone (the data dir is searchable by others when jails run as unprivileged users):
    // the recordings' dir is listed by nobody else, and each session's is its ffmpeg's only.
    await fsp.mkdir(path.join(this.dir, handle.id), { recursive: true, mode: 0o700 });
    // ffmpeg decodes frames of the tenant's pages: jailed with this replay's directory only.
    const { bwrap } = await jailStatus({ insecureNoJail: this.o.insecureNoJail ?? false });
    const pids = bwrap ? createPidsGroup(`rec-${id}`) : undefined;
    let jail: HelperJail | undefined;
    try {
      jail = bwrap ? await this.ffmpegJail(bwrap, handle, pids) : undefined;
    } catch (err) {
      await pids?.close();
      throw err;
    }
    const row: ReplayTable = {
      id,
      session_id: handle.id,
      org_id: handle.orgId,
      project_id: handle.projectId,
      node_id: this.o.nodeId,
      status: 'recording',
      framerate,
      file,
      size_bytes: null,
      error: null,
      started_at: this.o.now().toISOString(),
      finished_at: null,
      expires_at: null,
    };
    await this.o.db.insertInto('replays').values(row).execute();
    let chain: Promise<unknown> = Promise.resolve();
    const recorder = new ReplayRecorder(handle, {
      framerate,
      maxDurationMs: maxSeconds * 1000,
      rawPath: path.join(this.dir, handle.id, `${id}.capture.mp4`),
      finalPath: this.fileOf(row),
      log: (c) => this.o.log(handle.id, c),
      cursor: () => this.o.cursor(handle.id),
      now: () => this.o.now().getTime(),
      subscribe: subscribeScreencast,
      jail,
      onState: (state, info) => {
        if (state === 'failed' && recorder.framesWritten > 0 && info.error?.includes('encoder')) this.o.onCrash?.(handle.id);
        const set: Partial<ReplayTable> = { status: state };
        if (info.finishedAt !== undefined) {
          set.finished_at = new Date(info.finishedAt).toISOString();
          set.expires_at = new Date(info.finishedAt + this.o.retentionMs).toISOString();
        }
        if (info.sizeBytes !== undefined) set.size_bytes = info.sizeBytes;
        if (info.error) set.error = info.error.slice(0, 500);
        chain = chain.then(() => this.o.db.updateTable('replays').set(set).where('id', '=', id).execute()).catch(() => {});
        if (state === 'ready' || state === 'failed')
          void chain
            .then(() => this.active.delete(id))
            .then(() => this.o.onSettled?.(handle))
            .then(() => pids?.close());
      },
    });
    this.active.set(id, { sessionId: handle.id, recorder });
    if (!this.hooked.has(handle)) {
      this.hooked.add(handle);
      // The session's recordings are finished before its end completes.
      handle.scope.defer('replays', () => this.stopSession(handle.id));
    }
    recorder.start();
    return row;
  }

  /** Stops a recording (idempotent); resolves once the capture ended, finishing may continue. */
  async stop(row: ReplayTable): Promise<void> {
    const a = this.active.get(row.id);
    if (!a) return; // already finished (or from before a restart): nothing to do
    void a.recorder.stop();
  }

  private async stopSession(sessionId: string): Promise<void> {
    await Promise.all([...this.active.values()].filter((a) => a.sessionId === sessionId).map((a) => a.recorder.stop()));
  }

  async rowsOf(sessionId: string, orgId: string, projectId: string): Promise<ReplayTable[]> {
    return this.o.db
      .selectFrom('replays')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('org_id', '=', orgId)
      .where('project_id', '=', projectId)
      .orderBy('started_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
  }

  async row(sessionId: string, replayId: string, orgId: string, projectId: string): Promise<ReplayTable | undefined> {
    return this.o.db
      .selectFrom('replays')
      .selectAll()
      .where('id', '=', replayId)
      .where('session_id', '=', sessionId)
      .where('org_id', '=', orgId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  }

  /** Deletes expired recordings (row and file). Returns how many. */
  async sweep(): Promise<number> {
    const now = this.o.now().toISOString();
    const rows = await this.o.db
      .selectFrom('replays')
      .select(['id', 'file'])
      .where('expires_at', 'is not', null)
      .where('expires_at', '<', now)
      .where('node_id', '=', this.o.nodeId)
      .execute();
    for (const r of rows) {
      await fsp.rm(this.fileOf(r), { force: true });
      await this.o.db.deleteFrom('replays').where('id', '=', r.id).execute();
    }
    return rows.length;
  }

  /** After a restart: recordings this node left unfinished can never finish. */
  async recover(): Promise<void> {
    const now = this.o.now();
    await this.o.db
      .updateTable('replays')
      .set({
        status: 'failed',
        error: 'the engine stopped while recording',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.o.retentionMs).toISOString(),
      })
      .where('node_id', '=', this.o.nodeId)
      .where('status', 'in', ['recording', 'finishing'])
      .execute();
  }

  /** Engine stop: finish what can be finished in time, kill the rest. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    const all = [...this.active.values()];
    const done = Promise.all(all.map((a) => a.recorder.stop()));
    await Promise.race([done, new Promise((r) => setTimeout(r, 20_000).unref())]);
    for (const a of all) a.recorder.kill();
  }
}
