/** Opens a URL outside the app: a new tab on the web, the system browser on the desktop (main validates it). */
import { desktopApi } from '../transport';

export async function openExternal(url: string): Promise<void> {
  const api = desktopApi();
  if (api) {
    const r = await api.invoke('shell:open-external', { url });
    if ('error' in r) throw new Error(r.error.message);
    return;
  }
  window.open(url, '_blank', 'noopener,noreferrer');
}
