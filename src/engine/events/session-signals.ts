/**
 * In-process signals about a session's connections, raised by the modules that own them
 * (CDP proxy, live-view socket) and heard by whoever cares (the telemetry feature). Producers
 * stay ignorant of telemetry: a one-line `sessionSignals.emit(...)` is all they add. Listeners
 * must be quick and must not throw; a throwing listener is isolated from the others.
 */

export type SessionSignal =
  | { type: 'cdp_connect'; sessionId: string; connectionId: number }
  | {
      type: 'cdp_disconnect';
      sessionId: string;
      connectionId: number;
      durationMs: number;
      messageCount: number;
      reason: 'client_close' | 'upstream_changed' | 'upstream_error' | 'context_cancelled';
    }
  /** A client frame the CDP proxy forwarded to the browser (telemetry classifies it: `cdp_command`). */
  | { type: 'cdp_frame'; sessionId: string; connectionId: number; frame: string }
  | { type: 'live_view_connect'; sessionId: string }
  | { type: 'live_view_disconnect'; sessionId: string; durationMs: number }
  /**
   * A call or connection of the session was refused at one of the engine's resource limits
   * (`limit`: e.g. `exec_calls`, `connections`; `scope`: the session's own bound or the engine's).
   */
  | { type: 'limit_reached'; sessionId: string; limit: string; scope: 'session' | 'engine'; max: number };

type Listener = (s: SessionSignal) => void;

class SessionSignals {
  private readonly listeners = new Set<Listener>();

  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(s: SessionSignal): void {
    for (const fn of this.listeners) {
      try {
        fn(s);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}

/** The process-wide channel (session ids are unique, so engines in one process never mix). */
export const sessionSignals = new SessionSignals();
