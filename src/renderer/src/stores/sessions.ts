/**
 * Sessions of the selected project: the list (status/search/tag filters), create and delete.
 * The list is live: the Sessions screen polls it while visible and every mutation refetches.
 */
import type { Session } from '../../../shared/wire/sessions';
import { flattenObjectParam } from '../../../shared/ipc/query';
import { api } from '../transport/api-client';
import { changed } from './changes';
import { createListStore } from './list-store';

export type SessionStatusFilter = 'active' | 'deleted' | 'all';

export interface SessionFilters {
  status: SessionStatusFilter;
  query: string;
  /** `key=value` pairs, ANDed by the server. */
  tags: Record<string, string>;
}

export const useSessions = createListStore<Session, SessionFilters>({
  topic: 'sessions',
  filters: { status: 'active', query: '', tags: {} },
  fetch: async (f) => {
    const query: Record<string, string | number> = { status: f.status, limit: 100, ...flattenObjectParam('tags', f.tags) };
    if (f.query.trim()) query.query = f.query.trim();
    return api.call('GET /browsers', { query });
  },
});

export async function createSession(body: Record<string, unknown>): Promise<Session> {
  const s = await api.call('POST /browsers', { body });
  changed('sessions');
  return s;
}

export async function getSession(id: string): Promise<Session> {
  return api.call('GET /browsers/:id', { params: { id }, query: { include_deleted: true } });
}

/** Deletes each; resolves with the ids that failed and why (the others are gone). */
export async function deleteSessions(ids: string[]): Promise<Array<{ id: string; message: string }>> {
  const failures: Array<{ id: string; message: string }> = [];
  await Promise.all(
    ids.map(async (id) => {
      try {
        await api.call('DELETE /browsers/:id', { params: { id } });
      } catch (err) {
        failures.push({ id, message: err instanceof Error ? err.message : String(err) });
      }
    }),
  );
  changed('sessions');
  return failures;
}

/** Parses "team=qa, env=prod" into a tag map; throws on a pair without "=". */
export function parseTags(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new Error(`tag filter "${part}" must look like key=value`);
    out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}
