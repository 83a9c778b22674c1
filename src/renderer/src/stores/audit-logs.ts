/**
 * Audit log search: filters of wire §3.3, pages chained with `X-Next-Page-Token` ("Load more"
 * appends), and the export, which downloads every `/audit-logs/export/chunk` of the same query.
 */
import { create } from 'zustand';
import { api, type QueryOf } from '../transport/api-client';
import { errorMessage } from '../transport/transport';
import type { DownloadResult } from '../../../shared/ipc/contract';
import type { AuditLogEntry } from '../../../shared/wire/audit';

export type { AuditLogEntry };

export interface AuditFilters {
  /** ISO date-times; start inclusive, end exclusive. */
  start: string;
  end: string;
  auth_strategy: string;
  service: string;
  method: string;
  exclude_method: string[];
  search: string;
  search_user_id: string[];
}

export function defaultAuditFilters(now = new Date()): AuditFilters {
  return {
    start: new Date(now.getTime() - 24 * 3600_000).toISOString(),
    end: new Date(now.getTime() + 3600_000).toISOString(),
    auth_strategy: '',
    service: '',
    method: '',
    exclude_method: [],
    search: '',
    search_user_id: [],
  };
}

export function auditQuery(f: AuditFilters): QueryOf<'GET /audit-logs'> {
  const q: QueryOf<'GET /audit-logs'> = { start: f.start, end: f.end };
  for (const k of ['auth_strategy', 'service', 'method', 'search'] as const) if (f[k].trim()) q[k] = f[k].trim();
  if (f.exclude_method.length) q.exclude_method = f.exclude_method;
  if (f.search_user_id.length) q.search_user_id = f.search_user_id;
  return q;
}

interface AuditState {
  filters: AuditFilters;
  entries: AuditLogEntry[];
  nextToken: string | null;
  loading: boolean;
  loaded: boolean;
  error: string | null;
  exporting: boolean;
  search(filters: AuditFilters): Promise<void>;
  loadMore(): Promise<void>;
  exportAll(format: 'jsonl' | 'jsonl.gz'): Promise<DownloadResult>;
}

const PAGE = 50;

export const useAuditLogs = create<AuditState>((set, get) => ({
  filters: defaultAuditFilters(),
  entries: [],
  nextToken: null,
  loading: false,
  loaded: false,
  error: null,
  exporting: false,
  async search(filters) {
    set({ filters, loading: true, error: null });
    try {
      const r = await api.send('GET /audit-logs', { query: { ...auditQuery(filters), limit: PAGE } });
      set({ entries: r.body, nextToken: r.headers['x-has-more'] === 'false' ? null : r.headers['x-next-page-token'] || null, loading: false, loaded: true });
    } catch (err) {
      set({ loading: false, loaded: true, error: errorMessage(err), entries: [], nextToken: null });
    }
  },
  async loadMore() {
    const { nextToken, filters } = get();
    if (!nextToken) return;
    set({ loading: true });
    try {
      const r = await api.send('GET /audit-logs', { query: { ...auditQuery(filters), limit: PAGE, page_token: nextToken } });
      set({
        entries: [...get().entries, ...r.body],
        nextToken: r.headers['x-has-more'] === 'false' ? null : r.headers['x-next-page-token'] || null,
        loading: false,
      });
    } catch (err) {
      set({ loading: false, error: errorMessage(err) });
    }
  },
  async exportAll(format) {
    set({ exporting: true });
    try {
      const day = get().filters.start.slice(0, 10);
      return await api.download('GET /audit-logs/export/chunk', {
        opts: { query: { ...auditQuery(get().filters), format } },
        filename: `audit-logs-${day}.${format}`,
        cursor: true,
      });
    } finally {
      set({ exporting: false });
    }
  },
}));
