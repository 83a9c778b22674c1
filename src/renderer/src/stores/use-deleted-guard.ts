/**
 * For a detail page that can delete what it shows: `deleted.current` turns true the moment the
 * DELETE is sent, so the page's poll and its change notices stop reloading the object (a GET
 * answered after the delete would 404, and the console logs every failed request). A DELETE that
 * fails turns it back.
 */
import { useCallback, useRef } from 'react';

export function useDeletedGuard(): {
  deleted: React.RefObject<boolean>;
  remove: (request: () => Promise<unknown>) => Promise<void>;
} {
  const deleted = useRef(false);
  const remove = useCallback(async (request: () => Promise<unknown>) => {
    deleted.current = true;
    try {
      await request();
    } catch (err) {
      deleted.current = false;
      throw err;
    }
  }, []);
  return { deleted, remove };
}
