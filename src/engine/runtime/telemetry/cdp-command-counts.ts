/**
 * `cdp_command` events of a session's CDP proxy connections (Kernel §6.3): each forwarded client
 * frame is classified as it is relayed — in order, never sampled — and recorded while the control
 * category is on; per connection it counts the commands `control.cdp.excluded_methods` left out
 * and those whose arguments did not decode, which its `cdp_disconnect` reports as
 * `telemetry_excluded` and `telemetry_dropped` (exact counts here, both 0 when nothing was lost).
 */
import { classifyCdpFrame } from './cdp-command-event.js';
import type { SessionTelemetry } from './session-telemetry.js';

interface Lost {
  telemetry_dropped: number;
  telemetry_excluded: number;
}

export class CdpCommandCounts {
  private readonly lost = new Map<string, Lost>();

  frame(tel: SessionTelemetry | undefined, connectionId: string, frame: string): void {
    if (!tel || !tel.enabled('control')) return;
    const c = classifyCdpFrame(frame, connectionId);
    if (c.kind === 'ignored') return;
    if (c.kind === 'dropped') return void this.of(tel.sessionId, connectionId).telemetry_dropped++;
    if (tel.excludes(c.method)) return void this.of(tel.sessionId, connectionId).telemetry_excluded++;
    tel.emit('control', 'cdp_command', { source: { kind: 'kernel_api', event: c.method, metadata: { connection_id: connectionId } }, data: c.data });
  }

  /** The connection's counts, forgotten. */
  end(sessionId: string, connectionId: string): Lost {
    const key = `${sessionId}/${connectionId}`;
    const l = this.lost.get(key) ?? { telemetry_dropped: 0, telemetry_excluded: 0 };
    this.lost.delete(key);
    return l;
  }

  private of(sessionId: string, connectionId: string): Lost {
    const key = `${sessionId}/${connectionId}`;
    let l = this.lost.get(key);
    if (!l) this.lost.set(key, (l = { telemetry_dropped: 0, telemetry_excluded: 0 }));
    return l;
  }
}
