/**
 * Which pane a session opens on: the one named in the address, else the last pane this
 * user chose (remembered in this browser's / this desktop app's localStorage), else the live
 * view, which is what an operator usually opens a session for. Ended sessions have no live
 * panes, so they fall back to the first pane that remains (Overview).
 */
import type { PaneDef } from './panes/pane-types';

const KEY = 'browserdeck.session-pane';

export function rememberPane(id: string): void {
  try {
    localStorage.setItem(KEY, id);
  } catch {
    /* storage disabled: the default applies next time */
  }
}

function rememberedPane(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function chooseInitialPane(panes: PaneDef[], requested: string | undefined): PaneDef {
  const byId = (id: string | null | undefined) => (id ? panes.find((p) => p.id === id) : undefined);
  return byId(requested) ?? byId(rememberedPane()) ?? byId('live') ?? panes[0];
}
