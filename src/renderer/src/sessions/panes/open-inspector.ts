/**
 * Opens an inspection tool's link (DevTools on a tab, the trace viewer): a new browser tab on the
 * web; in the desktop app a native window, which main opens only for the connected engine's
 * `/devtools-frontend/` and `/trace-viewer/` pages (`src/main/inspector-window.ts`).
 */
import { desktopApi } from '../../transport';

export async function openInspector(url: string, title: string): Promise<void> {
  const api = desktopApi();
  if (api) {
    const r = await api.invoke('inspect:open-window', { url, title });
    if ('error' in r) throw new Error(r.error.message);
    return;
  }
  window.open(url, '_blank', 'noopener');
}
