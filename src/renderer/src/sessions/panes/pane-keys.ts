/**
 * Pane-level keyboard shortcuts: a single key acting while the pane is shown and no text field
 * has focus (the same rule as the app shortcuts in shell/shortcuts.ts, which lists them all in
 * the help overlay), and Ctrl/⌘+Enter for "run" inside an editor.
 */
import { useEffect, useRef } from 'react';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || !!el.closest('dialog') || !!el.closest('.xterm');
}

// The shell's "g <key>" go-to sequence must not also trigger a pane key (e.g. "g s").
let lastG = 0;
if (typeof window !== 'undefined')
  window.addEventListener(
    'keydown',
    (e) => {
      if (e.key === 'g' && !typing(e.target)) lastG = Date.now();
    },
    true,
  );

export function usePaneKey(key: string, fn: () => void): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || e.key !== key) return;
      if (Date.now() - lastG < 1500) return;
      e.preventDefault();
      ref.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [key]);
}

/** onKeyDown handler for an editor: Ctrl/⌘+Enter runs `fn`. */
export function runOnCtrlEnter(fn: () => void): (e: React.KeyboardEvent) => void {
  return (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      fn();
    }
  };
}
