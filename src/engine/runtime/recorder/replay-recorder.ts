/**
 * One replay recording: frames of the session's shared screencast pump, fed to ffmpeg at a
 * steady `framerate` (the newest frame is repeated while the page is still, so the video's
 * timing is the real timing), encoded to H.264 in a fragmented MP4 that stays readable even
 * if ffmpeg dies. Every frame written is exactly 1/framerate of video (a constant-rate input):
 * the engine's clock, not the moment ffmpeg reads the pipe, places frames. (Wall-clock stamps
 * taken by ffmpeg collapsed every frame queued while its jail was still starting into one, and
 * its fps filter then dropped most of a short recording: a 1 s recording on a loaded machine
 * came out empty and failed.) `stop()` — idempotent and safe to call concurrently — ends the capture and
 * runs the finishing pass (cursor overlay + faststart), moving `recording → finishing →
 * ready | failed`. The cursor's tracked positions are drawn in the finishing pass; while it
 * is hidden it is not drawn.
 */
import type { HelperJail } from '../sandbox/helper-jail.js';
import fsp from 'node:fs/promises';
import type { SessionHandle } from '../session/session-handle.js';
import type { ScreencastOptions, ScreencastSubscription } from '../screencast.js';
import { exitWithin, runFfmpeg, type FfmpegRun } from './ffmpeg-run.js';
import { finishReplay, type CursorMark } from './replay-finish.js';

/** How long a stop waits for the first frames of a recording that has fewer than MIN_FRAMES. */
const FIRST_FRAME_WAIT_MS = 10_000;
/** The fewest frames a stop waits for (a video of one frame is a still of 1/framerate s). */
const MIN_FRAMES = 2;
/** Frames owed after a stall (event loop or encoder) beyond this many seconds are forgiven, not caught up in a burst. */
const MAX_CATCH_UP_S = 2;

export type ReplayState = 'recording' | 'finishing' | 'ready' | 'failed';

export interface CursorView {
  visible: boolean;
  x?: number;
  y?: number;
}

export interface RecorderOptions {
  framerate: number;
  maxDurationMs: number;
  /** Fragmented capture file (deleted after finishing) and the finished MP4. */
  rawPath: string;
  finalPath: string;
  log(chunk: string): void;
  cursor(): CursorView;
  now(): number;
  subscribe(handle: SessionHandle, opts: ScreencastOptions): ScreencastSubscription;
  onState(state: ReplayState, info: { finishedAt?: number; sizeBytes?: number; error?: string }): void;
  /** ffmpeg's jail (write access to the replay's directory only); absent: ffmpeg runs on the host. */
  jail?: HelperJail;
}

export class ReplayRecorder {
  state: ReplayState = 'recording';
  private ffmpeg?: FfmpegRun;
  private sub?: ScreencastSubscription;
  private latest?: Buffer;
  /** When the video's clock started: frame n is due at clockStart + n/framerate (moved on after a forgiven stall). */
  private clockStart?: number;
  private ticker?: NodeJS.Timeout;
  private maxTimer?: NodeJS.Timeout;
  private stopping?: Promise<void>;
  private releaseThawed?: () => void;
  private readonly marks: CursorMark[] = [];
  private lastMark = '';
  framesWritten = 0;

  constructor(
    private readonly handle: SessionHandle,
    private readonly o: RecorderOptions,
  ) {}

  start(): void {
    const fps = this.o.framerate;
    // A recording is of a live browser: a frozen jail sends no frames (an engine that freezes idle
    // sessions would record nothing, or a still, until someone called the API).
    this.releaseThawed = this.handle.holdThawed();
    this.ffmpeg = runFfmpeg(
      // Frames arrive live: probe nothing, stamp each with its arrival time.
      [
        '-probesize',
        '32',
        '-analyzeduration',
        '0',
        '-f',
        'image2pipe',
        '-framerate',
        String(fps),
        '-c:v',
        'mjpeg',
        '-i',
        '-',
        '-vf',
        'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-tune',
        'zerolatency',
        '-g',
        String(fps * 2),
        '-movflags',
        '+frag_keyframe+empty_moov+default_base_moof',
        '-f',
        'mp4',
        '-y',
        this.o.rawPath,
      ],
      this.o.log,
      this.o.jail,
    );
    void this.ffmpeg.exited.then((code) => {
      if (this.state === 'recording') {
        this.o.log(`ffmpeg exited during recording (code ${code})\n`);
        void this.stop();
      }
    });
    this.sub = this.o.subscribe(this.handle, { maxWidth: this.handle.viewport.width, maxHeight: this.handle.viewport.height, quality: 70, buffer: 2 });
    void (async () => {
      for await (const f of this.sub!) this.latest = Buffer.from(f.data, 'base64');
    })().catch(() => {});
    this.ticker = setInterval(() => this.tick(), 1000 / fps);
    this.maxTimer = setTimeout(() => void this.stop(), this.o.maxDurationMs);
    this.maxTimer.unref();
  }

  private tick(): void {
    const stdin = this.ffmpeg?.child.stdin;
    if (!this.latest || !stdin || stdin.destroyed || this.state !== 'recording') return;
    // A backed-up encoder skips ticks rather than buffering without bound.
    if (stdin.writableLength > 8 * 1024 * 1024) return;
    const fps = this.o.framerate;
    const now = this.o.now();
    this.clockStart ??= now;
    // The frames due by now (ticks come late on a busy event loop): the newest frame stands in for
    // the ones missed. A long stall is forgiven rather than written as a burst the encoder chokes on.
    let owed = Math.floor(((now - this.clockStart) * fps) / 1000) + 1 - this.framesWritten;
    if (owed > MAX_CATCH_UP_S * fps) {
      this.clockStart += ((owed - 1) * 1000) / fps;
      owed = 1;
    }
    if (owed <= 0) return;
    // The cursor mark is stamped with the video time of the first frame written now.
    const t = this.framesWritten / fps;
    for (let i = 0; i < owed; i++) stdin.write(this.latest);
    this.framesWritten += owed;
    const c = this.o.cursor();
    const mark: CursorMark = { t, visible: c.visible && c.x !== undefined, x: Math.round(c.x ?? 0), y: Math.round(c.y ?? 0) };
    const key = `${mark.visible}:${mark.x}:${mark.y}`;
    if (key !== this.lastMark) {
      this.lastMark = key;
      this.marks.push(mark);
    }
  }

  /** Resolves once MIN_FRAMES have been written (the ticker repeats the first to arrive) or after `ms`. */
  private async firstFrames(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.framesWritten < MIN_FRAMES && Date.now() < until && this.ffmpeg?.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  }

  /** Ends the capture and finishes the file; every caller gets the same promise. */
  stop(): Promise<void> {
    this.stopping ??= this.finish();
    return this.stopping;
  }

  private async finish(): Promise<void> {
    // Stopped before the first frame was written (a loaded machine makes the screencast's first
    // frame late; a still page sends no other): wait for it, briefly, rather than fail as empty.
    if (this.framesWritten < MIN_FRAMES && this.state === 'recording') await this.firstFrames(FIRST_FRAME_WAIT_MS);
    this.state = 'finishing';
    this.o.onState('finishing', {});
    clearInterval(this.ticker);
    clearTimeout(this.maxTimer);
    this.sub?.close();
    this.releaseThawed?.();
    const ff = this.ffmpeg!;
    ff.child.stdin.end();
    const code = await exitWithin(ff, 30_000);
    const finishedAt = this.o.now();
    try {
      if (this.framesWritten === 0) throw new Error('no frame was captured');
      if (code !== 0) throw new Error(`the encoder failed (exit code ${code})`);
      const showCursor = this.marks.some((m) => m.visible);
      await finishReplay({ rawPath: this.o.rawPath, finalPath: this.o.finalPath, marks: showCursor ? this.marks : [], log: this.o.log, jail: this.o.jail });
      const { size } = await fsp.stat(this.o.finalPath);
      this.state = 'ready';
      this.o.onState('ready', { finishedAt, sizeBytes: size });
    } catch (err) {
      this.state = 'failed';
      this.o.log(`replay failed: ${(err as Error).message}\n`);
      this.o.onState('failed', { finishedAt, error: (err as Error).message });
    } finally {
      await fsp.rm(this.o.rawPath, { force: true });
    }
  }

  /** Engine stop or a stuck stop: no ffmpeg outlives this. */
  kill(): void {
    this.ffmpeg?.child.kill('SIGKILL');
  }
}
