/**
 * The project's running sessions, for screens that show which sessions use a resource (a
 * profile, a pool). Separate from the Sessions screen's store so that its filters stay the
 * operator's. The first 100 rows, like every list of the console.
 */
import type { Session } from '../../../shared/wire/sessions';
import { api } from '../transport/api-client';
import { createListStore } from './list-store';

export const useActiveSessions = createListStore<Session, Record<string, never>>({
  topic: 'sessions',
  filters: {},
  fetch: () => api.call('GET /browsers', { query: { status: 'active', limit: 100 } }),
});
