/**
 * Replays tab: start a recording (framerate, max duration), stop it, list the session's
 * replays, play one in an in-app <video> (the MP4 from the session's JWT URL — a media
 * element needs no API key and no CORS), and download it. The list polls while recording.
 * Under the video, the session's telemetry on a timeline (`sessions/timeline/`): clicking an
 * event seeks the video, playing highlights the events at the playhead.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PaneProps } from './pane-types';
import { api } from '../../transport/api-client';
import { errorMessage } from '../../transport/transport';
import { Badge, Button, EmptyState, ErrorBanner, Field, Spinner, formatTime } from '../../components/ui';
import { notify, reportError } from '../../stores/toasts';
import { formatBytes } from './session-api';
import { sessionUrl } from '../session-urls';
import { RecordIcon } from '../../components/icons';
import type { ReplayInfo } from '../../../../shared/wire/session-replays';
import { EventTimeline } from '../timeline/event-timeline';
import { timelineMarks } from '../timeline/timeline-events';
import { useSessionEvents } from '../timeline/use-session-events';

type Replay = ReplayInfo;

function duration(r: Replay): string {
  if (!r.started_at) return '—';
  const end = r.finished_at ? new Date(r.finished_at).getTime() : Date.now();
  const s = Math.max(0, Math.round((end - new Date(r.started_at).getTime()) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function ReplaysPane({ session }: PaneProps): React.JSX.Element {
  const [items, setItems] = useState<Replay[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [framerate, setFramerate] = useState('10');
  const [maxDuration, setMaxDuration] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  // Stopped here and still being finished (finished_at arrives when the MP4 is ready): played once ready.
  const [finishing, setFinishing] = useState<string | null>(null);
  const [videoError, setVideoError] = useState<string | null>(null);
  const live = !session.deleted_at;

  const load = useCallback(async () => {
    try {
      const list = await api.call('GET /browsers/:id/replays', { params: { id: session.session_id } });
      list.sort((a, b) => (b.started_at ?? '').localeCompare(a.started_at ?? ''));
      setItems(list);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [session]);
  const recording = items?.some((r) => r.started_at && !r.finished_at) ?? false;
  useEffect(() => {
    if (finishing && items?.some((r) => r.replay_id === finishing && r.finished_at)) {
      setFinishing(null);
      setPlaying(finishing);
    }
  }, [items, finishing]);
  useEffect(() => setVideoError(null), [playing]);
  useEffect(() => {
    void load();
    if (!recording) return;
    // Polled while recording: a replay's progress is not on the change feed.
    const t = setInterval(() => void load(), 2000);
    return () => clearInterval(t);
  }, [load, recording]);

  const start = async (): Promise<void> => {
    setBusy('start');
    try {
      const body: Record<string, number> = {};
      if (framerate.trim()) body.framerate = Number(framerate);
      if (maxDuration.trim()) body.max_duration_in_seconds = Number(maxDuration);
      const r = await api.call('POST /browsers/:id/replays', { params: { id: session.session_id }, body });
      notify(`Recording ${r.replay_id}`);
      await load();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };
  const stop = async (r: Replay): Promise<void> => {
    setBusy(r.replay_id);
    try {
      await api.call('POST /browsers/:id/replays/:replay_id/stop', { params: { id: session.session_id, replay_id: r.replay_id } });
      notify('Recording stopped: finishing the video');
      setFinishing(r.replay_id);
      await load();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };
  const download = async (r: Replay): Promise<void> => {
    try {
      const res = await api.download('GET /browsers/:id/replays/:replay_id', {
        opts: { params: { id: session.session_id, replay_id: r.replay_id } },
        filename: `replay-${r.replay_id}.mp4`,
      });
      if (res.saved) notify(`Downloaded replay (${formatBytes(res.bytes)})`);
    } catch (err) {
      reportError(err);
    }
  };

  const videoSrc = playing ? sessionUrl(session, 'GET /browsers/:id/replays/:replay_id', { replay_id: playing }) : undefined;
  const videoRef = useRef<HTMLVideoElement>(null);
  const [playheadMs, setPlayheadMs] = useState(0);
  useEffect(() => setPlayheadMs(0), [playing]);
  const { events } = useSessionEvents(session, false);
  const marks = useMemo(() => timelineMarks(events), [events]);
  const played = items?.find((r) => r.replay_id === playing);
  const originMs = played?.started_at ? new Date(played.started_at).getTime() : 0;
  const spanMs = played?.started_at ? (played.finished_at ? new Date(played.finished_at).getTime() : Date.now()) - originMs : 0;

  return (
    <div className="replays-pane">
      {live ? (
        <form
          className="toolbar card"
          onSubmit={(e) => {
            e.preventDefault();
            void start();
          }}
        >
          <Field label="Framerate (fps)" hint="Above 20 needs a GPU session">
            <input type="number" min={1} className="num-input" value={framerate} onChange={(e) => setFramerate(e.target.value)} />
          </Field>
          <Field label="Max duration (s)" hint="Empty = until stopped">
            <input type="number" min={1} className="num-input" value={maxDuration} onChange={(e) => setMaxDuration(e.target.value)} />
          </Field>
          <Button type="submit" variant="primary" busy={busy === 'start'} disabled={recording} className="align-end">
            {recording ? 'Recording…' : 'Start recording'}
          </Button>
        </form>
      ) : null}
      {error ? <ErrorBanner message={error} onRetry={() => void load()} /> : null}
      {!items && !error ? <Spinner label="Loading replays" /> : null}
      {items && !items.length ? (
        <EmptyState title="No replays yet">
          {live ? 'Start a recording above, use the browser, then stop it to play it here.' : 'This session recorded none.'}
        </EmptyState>
      ) : null}
      {items?.length ? (
        <table className="table replays">
          <thead>
            <tr>
              <th>Replay</th>
              <th>Started</th>
              <th>Length</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((r) => {
              const rec = !!r.started_at && !r.finished_at;
              return (
                <tr key={r.replay_id} className={playing === r.replay_id ? 'row-selected' : undefined}>
                  <td className="mono">{r.replay_id}</td>
                  <td className="nowrap small">{formatTime(r.started_at)}</td>
                  <td className="mono">{duration(r)}</td>
                  <td>
                    {finishing === r.replay_id && rec ? (
                      <Badge tone="warn">finishing…</Badge>
                    ) : rec ? (
                      <Badge tone="bad">
                        <RecordIcon className="icon icon-before" /> recording
                      </Badge>
                    ) : (
                      <Badge tone="ok">ready</Badge>
                    )}
                  </td>
                  <td className="row-actions">
                    {rec && finishing === r.replay_id ? (
                      <Spinner label="Finishing the video" />
                    ) : rec ? (
                      <Button variant="danger" busy={busy === r.replay_id} onClick={() => void stop(r)}>
                        Stop
                      </Button>
                    ) : (
                      <>
                        <Button aria-label={`Play ${r.replay_id}`} onClick={() => setPlaying(r.replay_id)}>
                          Play
                        </Button>
                        <Button aria-label={`Download ${r.replay_id}`} onClick={() => void download(r)}>
                          Download
                        </Button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {playing && videoSrc ? (
        <figure className="card player">
          <figcaption className="toolbar">
            <strong>Replay</strong> <span className="mono muted small">{playing}</span>
            <span className="spacer" />
            <Button variant="ghost" onClick={() => setPlaying(null)}>
              Close
            </Button>
          </figcaption>
          {videoError ? <ErrorBanner message={videoError} /> : null}
          <video
            key={videoSrc}
            className="replay-video"
            src={videoSrc}
            controls
            preload="auto"
            aria-label="Replay player"
            ref={videoRef}
            onTimeUpdate={(e) => setPlayheadMs(e.currentTarget.currentTime * 1000)}
            onSeeked={(e) => setPlayheadMs(e.currentTarget.currentTime * 1000)}
            onError={(e) =>
              setVideoError(`The video could not be loaded (${e.currentTarget.error?.message || 'the recording may have failed'}). Try Download.`)
            }
          />
          {played?.started_at ? (
            <EventTimeline
              label="Replay timeline"
              marks={marks}
              originMs={originMs}
              spanMs={spanMs}
              currentMs={playheadMs}
              onSeek={(ms) => {
                if (videoRef.current) videoRef.current.currentTime = ms / 1000;
                setPlayheadMs(ms);
              }}
            />
          ) : null}
        </figure>
      ) : null}
    </div>
  );
}
