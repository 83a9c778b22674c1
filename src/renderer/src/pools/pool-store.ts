/**
 * The pools of the selected project. A pool's row changes on the change feed (create, edit,
 * delete), but its counts change as browsers launch and are acquired, which publishes nothing:
 * the screens showing counts also poll (`usePolling`).
 */
import type { BrowserPool } from '../../../shared/wire/pools';
import { api } from '../transport/api-client';
import { createListStore } from '../stores/list-store';

export type { BrowserPool };

export const usePools = createListStore<BrowserPool, { query: string }>({
  topic: 'pools',
  filters: { query: '' },
  fetch: (f) => api.call('GET /browser_pools', { query: { limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) } }),
});

/** How often counts are refetched while a pool screen is shown. */
export const POOL_POLL_MS = 3000;

export function poolLabel(p: Pick<BrowserPool, 'id' | 'name'>): string {
  return p.name || p.id;
}
