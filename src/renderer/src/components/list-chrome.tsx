/**
 * What a searchable list screen shows above its table, once: the search box (the `/` shortcut
 * focuses any `data-search` field) with the loading spinner, the load error with Retry, and the
 * empty state once a finished load found nothing.
 */
import type { ReactNode } from 'react';
import { ErrorBanner, Spinner } from './ui';
import type { ListState } from '../stores/list-store';

export interface ListChromeProps {
  /** What is listed, for labels: "proxies" → "Search proxies", "Loading proxies". */
  noun: string;
  placeholder: string;
  /** The screen's list store (createListStore with a `query` filter). */
  list: ListState<unknown, { query: string }>;
  /** Shown when a load succeeded with no items. */
  empty: ReactNode;
}

export function ListChrome({ noun, placeholder, list, empty }: ListChromeProps): React.JSX.Element {
  return (
    <>
      <div className="toolbar">
        <input
          type="search"
          data-search
          aria-label={`Search ${noun}`}
          placeholder={placeholder}
          value={list.filters.query}
          onChange={(e) => list.setFilters({ query: e.target.value })}
        />
        {list.loading ? <Spinner label={`Loading ${noun}`} /> : null}
      </div>
      {list.error ? <ErrorBanner message={list.error} onRetry={() => void list.refresh()} /> : null}
      {list.loaded && !list.items.length && !list.error ? empty : null}
    </>
  );
}
