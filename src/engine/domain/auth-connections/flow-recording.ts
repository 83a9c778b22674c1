/**
 * What a login flow's browser session records besides the login itself: a replay for the
 * duration of the flow (`record_session`, through the engine's replays service — the same one
 * `POST /browsers/{id}/replays` uses) and its telemetry (`browser_telemetry`, applied as the
 * session's create-time telemetry config). Kept apart from the flow's page logic; the timeline
 * entry of the flow names the replay and whether telemetry was captured.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import type { ReplayService } from '../replays/replay-service.js';
import { normalizeTelemetry } from '../sessions/session-options.js';

export type FlowReplays = Pick<ReplayService, 'start' | 'stop'>;
type ReplayRow = Awaited<ReturnType<ReplayService['start']>>;

export interface RecordingOptions {
  /** record_session: record a replay while the flow runs. */
  recordSession?: boolean;
  /** browser_telemetry (create-browser shape); null turns telemetry off; undefined = session defaults. */
  telemetry?: Record<string, unknown> | null;
}

/** Rejects a browser_telemetry value the session would refuse, before anything starts. */
export function checkBrowserTelemetry(t: Record<string, unknown> | null | undefined): void {
  if (t === undefined) return;
  try {
    normalizeTelemetry(t as Parameters<typeof normalizeTelemetry>[0]);
  } catch (err) {
    if (err instanceof DomainError)
      throw DomainError.invalidField(
        'browser_telemetry',
        err.message.replace(/^telemetry(\.\S+)?: /, (_m, sub: string | undefined) => (sub ? `${sub.slice(1)}: ` : '')),
      );
    throw err;
  }
}

/** The session-create fields for the flow's telemetry. */
export function telemetryCreateFields(o: RecordingOptions): Record<string, unknown> {
  return o.telemetry !== undefined ? { telemetry: o.telemetry } : {};
}

export class FlowRecording {
  private replay?: ReplayRow;

  constructor(
    private readonly o: RecordingOptions,
    private readonly replays: FlowReplays,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  /** Starts recording the flow's session (before the login page opens, so the replay covers it all). */
  async begin(handle: SessionHandle): Promise<{ replayId: string | null; telemetryCaptured: boolean }> {
    if (this.o.recordSession) {
      this.replay = await this.replays.start(handle, {});
    }
    // Captured = the connection asked for telemetry and at least one category is on.
    const captured = this.o.telemetry != null && Object.values(handle.telemetry.browser).some((c) => c.enabled);
    return { replayId: this.replay?.id ?? null, telemetryCaptured: captured };
  }

  /** Ends the capture with the flow; the session's end then waits for the file to be finished. */
  async end(): Promise<void> {
    const replay = this.replay;
    this.replay = undefined;
    if (replay) await this.replays.stop(replay).catch((err) => this.log('stopping the flow replay failed', err));
  }
}
