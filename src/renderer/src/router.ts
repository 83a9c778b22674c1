/**
 * Hash routing (`#/sessions/<id>/<tab>`): works from file:// in Electron and at `/` on the
 * server without any server-side route. `useRoute()` gives the path segments.
 */
import { useSyncExternalStore } from 'react';

function subscribe(fn: () => void): () => void {
  window.addEventListener('hashchange', fn);
  return () => window.removeEventListener('hashchange', fn);
}

function current(): string {
  return window.location.hash.replace(/^#/, '') || '/sessions';
}

export function useRoute(): string[] {
  const path = useSyncExternalStore(subscribe, current);
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

export function navigate(path: string): void {
  window.location.hash = path;
}

export function href(path: string): string {
  return `#${path}`;
}
