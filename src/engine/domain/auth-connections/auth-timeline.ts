/**
 * The timeline of an auth connection: one entry per login/re-auth flow (updated as it moves)
 * and one per health check, listed newest first.
 */
import type { Kysely } from 'kysely';
import type { TimelineEventRecord } from '../../../shared/wire/identity.js';
import type { Database, AuthTimelineTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { newId } from '../ids.js';

export type TimelineRow = AuthTimelineTable;

export class AuthTimeline {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Per-connection insertion counter (timestamps can tie; fits a 32-bit integer column). */
  private async nextSeq(connectionId: string): Promise<number> {
    const r = await this.db
      .selectFrom('auth_timeline')
      .select((eb) => eb.fn.max('seq').as('m'))
      .where('connection_id', '=', connectionId)
      .executeTakeFirst();
    return Number(r?.m ?? 0) + 1;
  }

  async add(e: {
    id?: string;
    connectionId: string;
    type: TimelineRow['type'];
    status: string;
    step?: string | null;
    previousStatus?: string | null;
    browserSessionId?: string | null;
  }): Promise<string> {
    const now = this.clock.now().toISOString();
    const id = e.id ?? newId();
    await this.db
      .insertInto('auth_timeline')
      .values({
        id,
        connection_id: e.connectionId,
        type: e.type,
        status: e.status,
        step: e.step ?? null,
        previous_status: e.previousStatus ?? null,
        browser_session_id: e.browserSessionId ?? null,
        error_code: null,
        error_message: null,
        website_error: null,
        timestamp: now,
        updated_at: now,
        seq: await this.nextSeq(e.connectionId),
        replay_id: null,
        telemetry_captured: null,
      })
      .execute();
    return id;
  }

  async update(
    id: string,
    c: Partial<
      Pick<TimelineRow, 'status' | 'step' | 'browser_session_id' | 'error_code' | 'error_message' | 'website_error' | 'replay_id' | 'telemetry_captured'>
    >,
  ): Promise<void> {
    await this.db
      .updateTable('auth_timeline')
      .set({ ...c, updated_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
  }

  list(connectionId: string, q: { offset: number; limit: number; type?: string }): Promise<TimelineRow[]> {
    let sel = this.db.selectFrom('auth_timeline').selectAll().where('connection_id', '=', connectionId);
    if (q.type) sel = sel.where('type', '=', q.type as TimelineRow['type']);
    return sel
      .orderBy('seq', 'desc')
      .orderBy('timestamp', 'desc')
      .offset(q.offset)
      .limit(q.limit + 1)
      .execute();
  }

  static dto(r: TimelineRow): TimelineEventRecord {
    const d: Record<string, unknown> = { id: r.id, status: r.status, timestamp: r.timestamp, type: r.type };
    if (r.browser_session_id) d.browser_session_id = r.browser_session_id;
    if (r.error_code) d.error_code = r.error_code;
    if (r.error_message) d.error_message = r.error_message;
    if (r.previous_status) d.previous_status = r.previous_status;
    if (r.replay_id) d.replay_id = r.replay_id;
    if (r.telemetry_captured !== null && r.telemetry_captured !== undefined) d.telemetry_captured = r.telemetry_captured === 1;
    if (r.step) d.step = r.step;
    if (r.type !== 'health_check') d.updated_at = r.updated_at;
    if (r.website_error) d.website_error = r.website_error;
    // Built key by key (optional keys are left out); TimelineEventSchema is its shape.
    return d as TimelineEventRecord;
  }
}
