/**
 * The live view's steering bar, over the engine's existing APIs only: URL entry, back, forward
 * and reload run on the default executor (`playwright/execute`, whose `page` is the tab the live
 * view shows); the tab switcher lists the browser's pages (`cdp/json/list`) and brings one to the
 * front (`cdp/json/activate`, which the live view follows); a file appearing in `/downloads`
 * (polled with `fs/list_files` while the pane shows) raises a toast.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Session } from '../../../../shared/wire/sessions';
import { api } from '../../transport/api-client';
import { Button } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { usePolling } from '../../stores/use-polling';

interface Tab {
  id: string;
  title: string;
  url: string;
}

/** `example.com` → `https://example.com`; anything with a scheme (or about:) is kept. */
export function normaliseUrl(text: string): string {
  const t = text.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `https://${t}`;
}

const STEPS = {
  back: 'await page.goBack();',
  forward: 'await page.goForward();',
  reload: 'await page.reload();',
} as const;

export function LiveNav({ session }: { session: Session }): React.JSX.Element {
  const id = session.session_id;
  const [url, setUrl] = useState('');
  // Whether the user is in the address field, read when the effect below runs (not captured by a
  // render): a render made before the focus event (a tab poll's) must not write the page's URL
  // over what the user has started typing.
  const editing = useRef(false);
  const [busy, setBusy] = useState(false);
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [current, setCurrent] = useState<string>('');

  const refreshTabs = useCallback(async () => {
    try {
      const list = await api.call('GET /browsers/:id/cdp/json/list', { params: { id } });
      const pages = (list as Array<{ id: string; type: string; title?: string; url?: string }>)
        .filter((t) => t.type === 'page')
        .map((t) => ({ id: t.id, title: t.title || t.url || t.id, url: t.url ?? '' }));
      setTabs(pages);
      setCurrent((c) => (pages.some((p) => p.id === c) ? c : (pages[0]?.id ?? '')));
    } catch {
      // The list is a convenience: the live view itself still shows the page.
    }
  }, [id]);
  usePolling(refreshTabs, 3000);
  const shownTab = tabs.find((t) => t.id === current);
  useEffect(() => {
    if (!editing.current && shownTab) setUrl(shownTab.url);
  }, [shownTab]);

  const run = async (code: string, what: string): Promise<void> => {
    setBusy(true);
    try {
      const r = await api.call('POST /browsers/:id/playwright/execute', { params: { id }, body: { code, timeout_sec: 60 } });
      if (!r.success) reportError(new Error(`${what}: ${r.error ?? 'failed'}`));
      await refreshTabs();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };

  const activate = async (targetId: string): Promise<void> => {
    setCurrent(targetId);
    try {
      await api.call('PUT /browsers/:id/cdp/json/activate/:targetId', { params: { id, targetId } });
    } catch (err) {
      reportError(err);
    }
  };

  useDownloadToasts(id);

  return (
    <form
      className="live-nav"
      aria-label="Navigation"
      onSubmit={(e) => {
        e.preventDefault();
        if (!url.trim()) return;
        // The field follows the page again from the next tab poll on.
        editing.current = false;
        void run(`await page.goto(${JSON.stringify(normaliseUrl(url))});`, 'Go');
      }}
    >
      <Button aria-label="Back" disabled={busy} onClick={() => void run(STEPS.back, 'Back')}>
        ←
      </Button>
      <Button aria-label="Forward" disabled={busy} onClick={() => void run(STEPS.forward, 'Forward')}>
        →
      </Button>
      <Button aria-label="Reload" disabled={busy} onClick={() => void run(STEPS.reload, 'Reload')}>
        ⟳
      </Button>
      <input
        className="mono url-input"
        aria-label="Address"
        placeholder="https://…"
        value={url}
        onFocus={() => (editing.current = true)}
        onBlur={() => {
          // Leaving the field shows the page's URL again.
          editing.current = false;
          if (shownTab) setUrl(shownTab.url);
        }}
        onChange={(e) => setUrl(e.target.value)}
      />
      <Button type="submit" variant="primary" busy={busy}>
        Go
      </Button>
      <select aria-label="Tab" value={current} onChange={(e) => void activate(e.target.value)} disabled={tabs.length < 2}>
        {tabs.map((t) => (
          <option key={t.id} value={t.id}>
            {t.title.slice(0, 60)}
          </option>
        ))}
      </select>
    </form>
  );
}

const DOWNLOADS = '/downloads';

/** A toast for each file that appears in the session's downloads while the live view shows. */
function useDownloadToasts(id: string): void {
  const seen = useRef<Set<string> | null>(null);
  const poll = useCallback(async () => {
    try {
      const files = await api.call('GET /browsers/:id/fs/list_files', { params: { id }, query: { path: DOWNLOADS } });
      const names = files.filter((f) => !f.is_dir && !/\.(crdownload|tmp)$/.test(f.path)).map((f) => f.path);
      // The first listing is what was there before: only later arrivals are news.
      if (seen.current) for (const n of names) if (!seen.current.has(n)) notify(`Downloaded ${n.split('/').pop()} — in Files, ${DOWNLOADS}`);
      seen.current = new Set(names);
    } catch {
      // No downloads directory yet, or the session is going away.
    }
  }, [id]);
  usePolling(poll, 3000);
}
