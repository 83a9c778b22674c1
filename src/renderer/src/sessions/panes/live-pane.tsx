/**
 * Live view tab: the engine's live-view page (`browser_live_view_url`, session JWT) in an
 * iframe — interactive unless "Read-only" adds `readOnly=true` — plus the cursor visibility
 * switch (`POST computer/cursor`), the viewport (shown, and changed with PATCH), and a
 * screenshot (`POST computer/screenshot` → PNG shown in the pane, downloadable). Under it, the
 * session's recent telemetry on the same timeline as a replay's (`sessions/timeline/`). Above it,
 * the steering bar (live-nav.tsx: address, back/forward/reload, tabs, download toasts) and the
 * zoom: fit the pane, or 100 % (one screen pixel per page pixel, scrolled).
 */
import { useEffect, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { Button, EmptyState } from '../../components/ui';
import { reportError, notify } from '../../stores/toasts';
import { saveBlob, toBlob } from './session-api';
import { usePaneKey } from './pane-keys';
import { LiveTimeline } from '../timeline/live-timeline';
import { LiveNav } from './live-nav';
import '../../styles/session-view.css';

/** The live-view page's status bar above its canvas (live-view-page.ts: 24 px and a border). */
const LIVE_BAR_PX = 25;

function liveUrl(url: string, readOnly: boolean): string {
  const u = new URL(url);
  if (readOnly) u.searchParams.set('readOnly', 'true');
  else u.searchParams.delete('readOnly');
  return u.toString();
}

function ViewportEditor({ session, reload }: PaneProps): React.JSX.Element {
  const vp = session.viewport;
  const [editing, setEditing] = useState(false);
  const [w, setW] = useState(String(vp?.width ?? 1280));
  const [h, setH] = useState(String(vp?.height ?? 800));
  const [busy, setBusy] = useState(false);
  const apply = async (): Promise<void> => {
    setBusy(true);
    try {
      await api.call('PATCH /browsers/:id', {
        params: { id: session.session_id },
        body: { viewport: { width: Number(w), height: Number(h) } },
      });
      notify(`Viewport set to ${w} × ${h}`);
      setEditing(false);
      reload();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  if (!editing)
    return (
      <span className="viewport-info">
        Viewport <strong className="mono">{vp ? `${vp.width} × ${vp.height}${vp.refresh_rate ? ` @ ${vp.refresh_rate} Hz` : ''}` : 'default'}</strong>{' '}
        <button type="button" className="link" onClick={() => setEditing(true)}>
          change
        </button>
      </span>
    );
  return (
    <span className="viewport-info">
      <input aria-label="Viewport width" className="num-input" type="number" min={1} value={w} onChange={(e) => setW(e.target.value)} /> ×{' '}
      <input aria-label="Viewport height" className="num-input" type="number" min={1} value={h} onChange={(e) => setH(e.target.value)} />
      <Button busy={busy} onClick={() => void apply()}>
        Apply
      </Button>
      <Button variant="ghost" onClick={() => setEditing(false)}>
        Cancel
      </Button>
    </span>
  );
}

export function LivePane(props: PaneProps): React.JSX.Element {
  const { session } = props;
  const [readOnly, setReadOnly] = useState(false);
  const [zoom, setZoom] = useState<'fit' | '100'>('fit');
  const [cursorVisible, setCursorVisible] = useState(true);
  const [cursorBusy, setCursorBusy] = useState(false);
  const [shot, setShot] = useState<{ url: string; blob: Blob } | null>(null);
  const [shooting, setShooting] = useState(false);
  const shotRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!shot) return;
    shotRef.current?.scrollIntoView({ block: 'start' });
    return () => URL.revokeObjectURL(shot.url);
  }, [shot]);

  const toggleCursor = async (visible: boolean): Promise<void> => {
    setCursorBusy(true);
    try {
      await api.call('POST /browsers/:id/computer/cursor', { params: { id: session.session_id }, body: { hidden: !visible } });
      setCursorVisible(visible);
    } catch (err) {
      reportError(err);
    } finally {
      setCursorBusy(false);
    }
  };
  const screenshot = async (): Promise<void> => {
    setShooting(true);
    try {
      const blob = toBlob(await api.binary('POST /browsers/:id/computer/screenshot', { params: { id: session.session_id }, body: {} }), 'image/png');
      setShot({ url: URL.createObjectURL(blob), blob });
    } catch (err) {
      reportError(err);
    } finally {
      setShooting(false);
    }
  };
  usePaneKey('s', () => void screenshot());

  if (!session.browser_live_view_url)
    return <EmptyState title="No live view for this session">The server did not offer a live view URL. Use Screenshot in the Code tab instead.</EmptyState>;

  return (
    <div className="live-pane">
      <div className="toolbar">
        <label className="check-field">
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read-only
        </label>
        <label className="check-field">
          <input type="checkbox" checked={cursorVisible} disabled={cursorBusy} onChange={(e) => void toggleCursor(e.target.checked)} /> Show cursor
        </label>
        <ViewportEditor {...props} />
        <select aria-label="Zoom" value={zoom} onChange={(e) => setZoom(e.target.value === '100' ? '100' : 'fit')}>
          <option value="fit">Fit</option>
          <option value="100">100 %</option>
        </select>
        <span className="spacer" />
        <Button busy={shooting} onClick={() => void screenshot()}>
          Screenshot <kbd>s</kbd>
        </Button>
        <a className="btn" href={liveUrl(session.browser_live_view_url, readOnly)} target="_blank" rel="noreferrer">
          Open in new window
        </a>
      </div>
      {readOnly ? null : <LiveNav session={session} />}
      <div className={`live-frame-box zoom-${zoom}`}>
        <iframe
          key={String(readOnly)}
          className="live-frame"
          title="Live view"
          src={liveUrl(session.browser_live_view_url, readOnly)}
          allow="clipboard-read; clipboard-write"
          style={zoom === '100' && session.viewport ? { width: session.viewport.width, height: session.viewport.height + LIVE_BAR_PX } : undefined}
        />
      </div>
      <LiveTimeline session={session} />
      {shot ? (
        <figure ref={shotRef} className="card screenshot">
          <figcaption className="toolbar">
            <strong>Screenshot</strong>
            <span className="muted small">{new Date().toLocaleTimeString()}</span>
            <span className="spacer" />
            <Button onClick={() => saveBlob(shot.blob, `screenshot-${session.session_id}.png`)}>Download PNG</Button>
            <Button variant="ghost" onClick={() => setShot(null)}>
              Close
            </Button>
          </figcaption>
          <img src={shot.url} alt="Screenshot of the session" />
        </figure>
      ) : null}
    </div>
  );
}
