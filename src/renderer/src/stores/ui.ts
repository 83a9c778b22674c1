/**
 * UI state shared across screens: the selected project (sent as X-Kernel-Project-Id), which
 * global dialogs are open (so keyboard shortcuts can open them from anywhere).
 */
import { create } from 'zustand';

const PROJECT_KEY = 'browserdeck.project';

interface UiState {
  /** Project id to act in; undefined = the credential's default project. */
  projectId: string | undefined;
  createSessionOpen: boolean;
  helpOpen: boolean;
  setProject(id: string | undefined): void;
  setCreateSessionOpen(open: boolean): void;
  setHelpOpen(open: boolean): void;
}

function savedProject(): string | undefined {
  try {
    return sessionStorage.getItem(PROJECT_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export const useUi = create<UiState>((set) => ({
  projectId: savedProject(),
  createSessionOpen: false,
  helpOpen: false,
  setProject(id) {
    try {
      if (id) sessionStorage.setItem(PROJECT_KEY, id);
      else sessionStorage.removeItem(PROJECT_KEY);
    } catch {}
    set({ projectId: id });
  },
  setCreateSessionOpen: (open) => set({ createSessionOpen: open }),
  setHelpOpen: (open) => set({ helpOpen: open }),
}));
