/**
 * The pattern every list screen uses: a zustand store holding `items`, `filters`, `loading`,
 * `error`, that fetches through the transport, refetches when its topic changes (debounced),
 * and ignores answers that arrive after a newer request started. Create one per resource with
 * `createListStore({topic, fetch, filters})`.
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { onChange, type Topic } from './changes';
import { errorMessage } from '../transport/transport';

export interface ListState<T, F> {
  items: T[];
  filters: F;
  loading: boolean;
  loaded: boolean;
  error: string | null;
  /** Merges filters and refetches. */
  setFilters(patch: Partial<F>): void;
  refresh(): Promise<void>;
}

export type ListStore<T, F> = UseBoundStore<StoreApi<ListState<T, F>>>;

export function createListStore<T, F>(opts: { topic: Topic; filters: F; fetch: (filters: F) => Promise<T[]> }): ListStore<T, F> {
  let generation = 0;
  const store = create<ListState<T, F>>((set, get) => ({
    items: [],
    filters: opts.filters,
    loading: false,
    loaded: false,
    error: null,
    setFilters(patch) {
      set({ filters: { ...get().filters, ...patch } });
      void get().refresh();
    },
    async refresh() {
      const mine = ++generation;
      set({ loading: true });
      try {
        const items = await opts.fetch(get().filters);
        if (mine === generation) set({ items, loading: false, loaded: true, error: null });
      } catch (err) {
        if (mine === generation) set({ loading: false, loaded: true, error: errorMessage(err) });
      }
    },
  }));
  onChange(opts.topic, () => void store.getState().refresh());
  return store;
}
