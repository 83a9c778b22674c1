/**
 * Desktop connections (local engine + remote servers) as main reports them: masked keys and
 * health only. Kept current by main's `connections:changed` events; switching the active
 * connection refetches every screen.
 */
import { create } from 'zustand';
import type { ConnectionInfo, VaultStatus } from '../../../shared/ipc/contract';
import { DesktopTransport, desktopApi, transport } from '../transport';
import { changed } from './changes';

interface ConnectionsState {
  list: ConnectionInfo[];
  vault: VaultStatus | null;
  init(): () => void;
  add(input: { name: string; url: string; apiKey: string }): Promise<ConnectionInfo>;
  activate(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  check(id: string): Promise<void>;
}

function desktop(): DesktopTransport {
  const t = transport();
  if (!(t instanceof DesktopTransport)) throw new Error('connections exist only in the desktop app');
  return t;
}

const ALL: Parameters<typeof changed> = ['sessions', 'projects', 'api-keys', 'org-limits', 'audit-logs'];

export const useConnections = create<ConnectionsState>((set) => ({
  list: [],
  vault: null,
  init() {
    const api = desktopApi();
    if (!api) return () => {};
    void desktop()
      .invoke('connections:list')
      .then((list) => set({ list }));
    void desktop()
      .invoke('app:info')
      .then((info) => set({ vault: info.vault }));
    return api.on('connections:changed', (list) => set({ list }));
  },
  async add(input) {
    const c = await desktop().invoke('connections:add', input);
    set({ list: await desktop().invoke('connections:list') });
    return c;
  },
  async activate(id) {
    await desktop().invoke('connections:activate', { id });
    set({ list: await desktop().invoke('connections:list') });
    changed(...ALL);
  },
  async remove(id) {
    set({ list: await desktop().invoke('connections:remove', { id }) });
    changed(...ALL);
  },
  async check(id) {
    await desktop().invoke('connections:check', { id });
    set({ list: await desktop().invoke('connections:list') });
  },
}));
