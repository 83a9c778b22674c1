/**
 * The processes of a session, per session: the engine lists every process the session ran
 * (`GET /browsers/{id}/processes`: this console's, the SDK's, exec's), refreshed while the pane
 * shows; what this console started keeps the command line as typed. An engine without that
 * route (older) leaves the list to this console: each running entry is then refreshed from
 * `process/{id}/status`.
 */
import { create } from 'zustand';
import type { Session } from '../../../../shared/wire/sessions';
import type { ProcessInfo, ProcessSpawnResult, ProcessStatus } from '../../../../shared/wire/session-processes';
import { api } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';

/** A process this console started: what spawn answered, the command line, and its last status. */
export type ProcessEntry = Pick<ProcessSpawnResult, 'process_id'> &
  Partial<Pick<ProcessSpawnResult, 'pid' | 'started_at'>> &
  Partial<Omit<ProcessStatus, 'state'>> & {
    command: string;
    tty: boolean;
    /** `unknown`: the engine no longer knows the process (its session restarted or ended). */
    state: ProcessStatus['state'] | 'unknown';
    /** `SIGKILL` for exit code 137 (from the engine's list). */
    exit_signal?: string;
    origin?: ProcessInfo['origin'];
    error?: string;
  };

interface ProcessesState {
  bySession: Record<string, ProcessEntry[]>;
  /** Rows the user removed from the list (the engine still lists them). */
  removed: Record<string, string[]>;
  add(sessionId: string, p: ProcessEntry): void;
  patch(sessionId: string, processId: string, patch: Partial<ProcessEntry>): void;
  remove(sessionId: string, processId: string): void;
  refresh(session: Session): Promise<void>;
}

export const useProcesses = create<ProcessesState>((set, get) => ({
  bySession: {},
  removed: {},
  add(sid, p) {
    set({ bySession: { ...get().bySession, [sid]: [p, ...(get().bySession[sid] ?? [])] } });
  },
  patch(sid, id, patch) {
    set({ bySession: { ...get().bySession, [sid]: (get().bySession[sid] ?? []).map((p) => (p.process_id === id ? { ...p, ...patch } : p)) } });
  },
  remove(sid, id) {
    set({
      bySession: { ...get().bySession, [sid]: (get().bySession[sid] ?? []).filter((p) => p.process_id !== id) },
      removed: { ...get().removed, [sid]: [...(get().removed[sid] ?? []), id] },
    });
  },
  async refresh(session) {
    const sid = session.session_id;
    let listed: ProcessInfo[] | undefined;
    try {
      listed = await api.call('GET /browsers/:id/processes', { params: { id: session.session_id } });
    } catch {
      listed = undefined; // an engine without the list: poll what this console started
    }
    if (listed) {
      const mine = new Map((get().bySession[sid] ?? []).map((p) => [p.process_id, p]));
      const removed = get().removed[sid] ?? [];
      const rows = listed
        .filter((r) => !removed.includes(r.process_id))
        .reverse()
        .map((r): ProcessEntry => ({ ...r, command: mine.get(r.process_id)?.command ?? [r.command, ...r.args].join(' ') }));
      set({ bySession: { ...get().bySession, [sid]: rows } });
      return;
    }
    const running = (get().bySession[sid] ?? []).filter((p) => p.state !== 'exited');
    await Promise.all(
      running.map(async (p) => {
        try {
          const st = await api.call('GET /browsers/:id/process/:process_id/status', { params: { id: session.session_id, process_id: p.process_id } });
          get().patch(sid, p.process_id, {
            state: st.state ?? 'unknown',
            exit_code: st.exit_code,
            cpu_pct: st.cpu_pct,
            mem_bytes: st.mem_bytes,
            error: undefined,
          });
        } catch (err) {
          // A process the server no longer knows (session restarted, forgotten) is shown as such.
          get().patch(sid, p.process_id, { state: 'unknown', error: errorMessage(err) });
        }
      }),
    );
  },
}));

/** `sh -c <line>` so pipes, quotes and globs behave as typed. */
export function shellCommand(line: string): { command: string; args: string[] } {
  return { command: 'sh', args: ['-c', line] };
}
