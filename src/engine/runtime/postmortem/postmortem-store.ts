/**
 * The post-mortems of ended sessions (`services.postmortem`): when a session's scope closes,
 * after its telemetry has ended and its processes were stopped but before its log rings are
 * dropped, its record (postmortem-record.ts) is written to `<data-dir>/postmortem/<id>.json.gz`
 * on the node that ran it — gzip, at most `maxBytes` of JSON before compression. The routes of an
 * ended session (telemetry events and stream, logs, process list, HAR) read it back, and a sweep
 * removes records older than the retention (`--postmortem-retention-hours`, env `BROWSERDECK_POSTMORTEM_RETENTION_HOURS`, default the
 * replays' retention). A record's file time is its end by the engine's clock, which the sweep
 * compares against.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { SessionHandle } from '../session/session-handle.js';
import type { ServiceLogs } from '../service-logs.js';
import type { TelemetryService } from '../telemetry/telemetry-service.js';
import type { ProcessTable } from '../processes/process-table.js';
import { boundRecord, POSTMORTEM_MAX_BYTES, type PostmortemRecord } from './postmortem-record.js';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** How many parsed records `read` keeps (each at most `maxBytes` of JSON). */
const RECENT_RECORDS = 4;

/** Session ids are engine-made (`[a-z0-9]`), but a file name is never built from anything else. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface PostmortemOptions {
  dataDir: string;
  retentionMs: number;
  sweepIntervalMs: number;
  maxBytes?: number;
  now: () => number;
  telemetry: TelemetryService;
  serviceLogs: ServiceLogs;
  processes: ProcessTable;
  log: (err: unknown, message: string) => void;
}

export class PostmortemStore {
  private readonly dir: string;
  private readonly sweeper: NodeJS.Timeout;
  /** Writes in flight: a read of a session that just ended waits for its record. */
  private readonly writing = new Map<string, Promise<void>>();
  /**
   * The last records read, by id with their file time: a console or a client polling an ended
   * session's telemetry would otherwise read, gunzip and parse up to `maxBytes` of JSON on the
   * event loop for every request. A few entries cover the sessions someone is looking at.
   */
  private readonly recent = new Map<string, { mtimeMs: number; record: PostmortemRecord }>();

  constructor(private readonly o: PostmortemOptions) {
    this.dir = path.join(o.dataDir, 'postmortem');
    this.sweeper = setInterval(() => void this.sweep().catch((err) => o.log(err, 'post-mortem sweep failed')), o.sweepIntervalMs);
    this.sweeper.unref();
  }

  /**
   * A session's browser is up: its record is written when its scope closes. Call this before the
   * telemetry service attaches (scope steps close newest first, so this one runs after telemetry
   * and the processes have ended, and before the log rings registered at create are dropped).
   */
  sessionStarted(handle: SessionHandle): void {
    handle.scope.defer('post-mortem', () => this.capture(handle.id));
  }

  private file(id: string): string | undefined {
    return SAFE_ID.test(id) ? path.join(this.dir, `${id}.json.gz`) : undefined;
  }

  /** Writes what the session leaves behind (bounded); a failure is logged, never fails the end. */
  capture(id: string): Promise<void> {
    const endedMs = this.o.now();
    const record: PostmortemRecord = {
      session_id: id,
      ended_at: new Date(endedMs).toISOString(),
      telemetry: this.o.telemetry.get(id)?.envelopes() ?? [],
      logs: this.o.serviceLogs.snapshot(id),
      processes: this.o.processes.takeEnded(id),
    };
    const write = this.write(id, boundRecord(record, this.o.maxBytes ?? POSTMORTEM_MAX_BYTES), endedMs)
      .catch((err) => this.o.log(err, 'writing a post-mortem failed'))
      .finally(() => this.writing.delete(id));
    this.writing.set(id, write);
    return write;
  }

  private async write(id: string, record: PostmortemRecord, endedMs: number): Promise<void> {
    const file = this.file(id);
    if (!file) return;
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, await gzip(JSON.stringify(record)), { mode: 0o600 });
    const at = new Date(endedMs);
    await fs.utimes(tmp, at, at);
    await fs.rename(tmp, file);
  }

  /** An ended session's record while it is retained (undefined when none was kept or it expired). */
  async read(id: string): Promise<PostmortemRecord | undefined> {
    await this.writing.get(id);
    const file = this.file(id);
    if (!file) return undefined;
    let buf: Buffer;
    let mtimeMs: number;
    try {
      const st = await fs.stat(file);
      mtimeMs = st.mtimeMs;
      if (this.o.now() - mtimeMs > this.o.retentionMs) return undefined;
      const hit = this.recent.get(id);
      if (hit?.mtimeMs === mtimeMs) {
        this.recent.delete(id);
        this.recent.set(id, hit);
        return hit.record;
      }
      buf = await fs.readFile(file);
    } catch {
      return undefined;
    }
    // The record was bounded when written; the bound here keeps a damaged file from inflating without one.
    const json = await gunzip(buf, { maxOutputLength: 2 * (this.o.maxBytes ?? POSTMORTEM_MAX_BYTES) });
    const record = JSON.parse(json.toString('utf8')) as PostmortemRecord;
    this.recent.set(id, { mtimeMs, record });
    if (this.recent.size > RECENT_RECORDS) this.recent.delete(this.recent.keys().next().value as string);
    return record;
  }

  /** Removes records past the retention; returns how many. */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    const now = this.o.now();
    for (const name of names) {
      const p = path.join(this.dir, name);
      const st = await fs.stat(p).catch(() => undefined);
      if (st && now - st.mtimeMs > this.o.retentionMs) {
        await fs.rm(p, { force: true });
        removed++;
      }
    }
    return removed;
  }

  stop(): void {
    clearInterval(this.sweeper);
  }
}
