/**
 * What a searchable list screen shows above its table, once: the search box (the `/` shortcut
 * focuses any `data-search` field) with the loading spinner, the load error with Retry, and the
 * empty state once a finished load found nothing.
 */
import type { ReactNode } from 'react';
import { ErrorBanner, Spinner } from './ui';

export interface ListChromeProps {
  /** What is listed, for labels: "proxies" → "Search proxies", "Loading proxies". */
  noun: string;
  placeholder: string;
  query: string;
  onQuery(q: string): void;
  loading: boolean;
  loaded: boolean;
  error: string | null;
  count: number;
  onRetry(): void;
  /** Shown when a load succeeded with no items. */
  empty: ReactNode;
}

export function ListChrome(p: ListChromeProps): React.JSX.Element {
  return (
    <>
      <div className="toolbar">
        <input type="search" data-search aria-label={`Search ${p.noun}`} placeholder={p.placeholder} value={p.query} onChange={(e) => p.onQuery(e.target.value)} />
        {p.loading ? <Spinner label={`Loading ${p.noun}`} /> : null}
      </div>
      {p.error ? <ErrorBanner message={p.error} onRetry={p.onRetry} /> : null}
      {p.loaded && !p.count && !p.error ? p.empty : null}
    </>
  );
}
