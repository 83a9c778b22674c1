/** Organization limits: the org-wide session cap (read-only) and the default per-project cap. */
import { create } from 'zustand';
import type { OrgLimits } from '../../../shared/wire/org';
import { api } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import { onChange, changed } from './changes';

interface OrgLimitsState {
  limits: OrgLimits | null;
  error: string | null;
  refresh(): Promise<void>;
  save(defaultProjectMax: number | null): Promise<void>;
}

export const useOrgLimits = create<OrgLimitsState>((set) => ({
  limits: null,
  error: null,
  async refresh() {
    try {
      set({ limits: await api.call('GET /org/limits'), error: null });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async save(defaultProjectMax) {
    // 0 removes the default (wire §3.20); the UI's "no default" maps to 0.
    const limits = await api.call('PATCH /org/limits', { body: { default_project_max_concurrent_sessions: defaultProjectMax ?? 0 } });
    set({ limits });
    changed('org-limits');
  },
}));

onChange('org-limits', () => void useOrgLimits.getState().refresh());
