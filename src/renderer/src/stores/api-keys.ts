/** API keys: list with the wire filters (status, query, sort), create, rotate, delete. */
import type { ApiKey, CreatedApiKey } from '../../../shared/wire/org';
import { api } from '../transport/api-client';
import { changed } from './changes';
import { createListStore } from './list-store';

export interface ApiKeyFilters {
  status: 'active' | 'deleted' | 'all';
  query: string;
  sort_by: 'created_at' | 'name' | 'expires_at';
  sort_direction: 'asc' | 'desc';
}

export const useApiKeys = createListStore<ApiKey, ApiKeyFilters>({
  topic: 'api-keys',
  filters: { status: 'active', query: '', sort_by: 'created_at', sort_direction: 'desc' },
  fetch: (f) =>
    api.call('GET /org/api_keys', {
      query: { status: f.status, sort_by: f.sort_by, sort_direction: f.sort_direction, limit: 100, ...(f.query.trim() ? { query: f.query.trim() } : {}) },
    }),
});

export async function createApiKey(body: { name: string; days_to_expire?: number | null; project_id?: string | null }): Promise<CreatedApiKey> {
  const k = await api.call('POST /org/api_keys', { body });
  changed('api-keys');
  return k;
}

export async function rotateApiKey(id: string, body: { days_to_expire?: number | null; expire_in_days?: number | null }): Promise<CreatedApiKey> {
  const k = await api.call('POST /org/api_keys/:id/rotate', { params: { id }, body });
  changed('api-keys');
  return k;
}

export async function deleteApiKey(id: string): Promise<void> {
  await api.call('DELETE /org/api_keys/:id', { params: { id } });
  changed('api-keys');
}
