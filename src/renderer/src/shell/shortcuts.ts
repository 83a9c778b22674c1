/**
 * Keyboard shortcuts for the common moves. Single keys act only when no text field has focus;
 * `g` starts a two-key "go to" sequence. The help overlay (`?`) lists the same table.
 */
import { useEffect } from 'react';
import { navigate } from '../router';
import { useUi } from '../stores/ui';

export const SHORTCUTS: Array<{ keys: string; what: string }> = [
  { keys: 'n', what: 'New session' },
  { keys: '/', what: 'Search the current list' },
  { keys: 'g s', what: 'Go to Sessions' },
  { keys: 'g i', what: 'Go to Invocations' },
  { keys: 'g x', what: 'Go to Proxies' },
  { keys: 'g u', what: 'Go to Auth connections' },
  { keys: 'g p', what: 'Go to Projects' },
  { keys: 'g l', what: 'Go to Organization limits' },
  { keys: 'g k', what: 'Go to API keys' },
  { keys: 'g a', what: 'Go to Audit logs' },
  { keys: 'r', what: 'Refresh the current list' },
  { keys: '1 … 9', what: 'Session: switch to tab 1–9' },
  { keys: 's', what: 'Live view: take a screenshot' },
  { keys: 'u', what: 'Files: upload to the current folder' },
  { keys: 't', what: 'Processes: open a terminal' },
  { keys: 'p', what: 'Telemetry: pause / resume' },
  { keys: 'Ctrl Enter', what: 'Code: run · HTTP: send' },
  { keys: '?', what: 'Show this help' },
  { keys: 'Esc', what: 'Close a dialog' },
];

const GO: Record<string, string> = {
  s: '/sessions',
  i: '/invocations',
  x: '/proxies',
  u: '/auth-connections',
  p: '/admin/projects',
  l: '/admin/limits',
  k: '/admin/api-keys',
  a: '/admin/audit-logs',
  c: '/connections',
};

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || !!el.closest('dialog');
}

export function useShortcuts(onRefresh: () => void): void {
  useEffect(() => {
    let pendingG = 0;
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const ui = useUi.getState();
      if (pendingG && Date.now() - pendingG < 1500) {
        pendingG = 0;
        const to = GO[e.key];
        if (to) {
          e.preventDefault();
          navigate(to);
        }
        return;
      }
      switch (e.key) {
        case 'g':
          pendingG = Date.now();
          break;
        case 'n':
          e.preventDefault();
          navigate('/sessions');
          ui.setCreateSessionOpen(true);
          break;
        case '/': {
          const search = document.querySelector<HTMLInputElement>('[data-search]');
          if (search) {
            e.preventDefault();
            search.focus();
          }
          break;
        }
        case 'r':
          onRefresh();
          break;
        case '?':
          ui.setHelpOpen(!ui.helpOpen);
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onRefresh]);
}
