/** Keys 1–9 switch the session view's tabs (in registry order) when no text field has focus. */
import { useEffect } from 'react';
import { navigate } from '../../router';
import type { PaneDef } from './pane-types';

export function usePaneKeys(sessionId: string, panes: PaneDef[]): void {
  const ids = panes.map((p) => p.id).join(',');
  useEffect(() => {
    const list = ids.split(',');
    const onKey = (e: KeyboardEvent): void => {
      const el = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || !/^[1-9]$/.test(e.key)) return;
      if (el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.closest('dialog') || el.closest('.xterm'))) return;
      const id = list[Number(e.key) - 1];
      if (!id) return;
      e.preventDefault();
      navigate(`/sessions/${encodeURIComponent(sessionId)}/${id}`);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [sessionId, ids]);
}
