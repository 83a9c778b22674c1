/** Refreshes a store every `ms` while the component is mounted and the page is visible. */
import { useEffect } from 'react';

export function usePolling(refresh: () => void | Promise<void>, ms: number): void {
  useEffect(() => {
    void refresh();
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void refresh();
    }, ms);
    return () => clearInterval(t);
  }, [refresh, ms]);
}
