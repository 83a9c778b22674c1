/**
 * Per-session live-view state other features can set (`services.liveView`): whether the
 * cursor is shown and where it was last moved by automation (the computer feature). Every
 * connected viewer of the session hears each change; the state dies with the session.
 */
import type { SessionHandle } from '../session/session-handle.js';

export interface CursorState {
  visible: boolean;
  /** Last known pointer position in page CSS pixels, when something moved it. */
  x?: number;
  y?: number;
}

export interface LiveViewService {
  cursor(sessionId: string): CursorState;
  /** Merges a change into the cursor state and tells every viewer of the session. */
  setCursor(session: SessionHandle, change: Partial<CursorState>): CursorState;
  /** How many live-view clients are connected to a session. */
  viewers(sessionId: string): number;
  /** Engine-internal: a viewer subscribes to cursor changes. */
  watch(session: SessionHandle, fn: (c: CursorState) => void): () => void;
}

export function createLiveViewService(): LiveViewService {
  const cursors = new Map<string, CursorState>();
  const watchers = new Map<string, Set<(c: CursorState) => void>>();
  const tracked = new Set<string>();

  const track = (s: SessionHandle) => {
    if (tracked.has(s.id)) return;
    tracked.add(s.id);
    s.scope.defer('live-view cursor', () => {
      tracked.delete(s.id);
      cursors.delete(s.id);
      watchers.delete(s.id);
    });
  };

  return {
    cursor: (id) => cursors.get(id) ?? { visible: true },
    setCursor(session, change) {
      track(session);
      const next: CursorState = { ...(cursors.get(session.id) ?? { visible: true }) };
      if (change.visible !== undefined) next.visible = change.visible;
      if (change.x !== undefined && change.y !== undefined && Number.isFinite(change.x) && Number.isFinite(change.y)) {
        next.x = change.x;
        next.y = change.y;
      }
      cursors.set(session.id, next);
      for (const fn of watchers.get(session.id) ?? []) fn(next);
      return next;
    },
    viewers: (id) => watchers.get(id)?.size ?? 0,
    watch(session, fn) {
      track(session);
      let set = watchers.get(session.id);
      if (!set) watchers.set(session.id, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
  };
}
