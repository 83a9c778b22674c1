/**
 * A replay's timing is the engine's clock, not the moment ffmpeg gets to read its pipe. On a
 * loaded machine the encoder (in its jail) can start a second or more after the recording did;
 * every frame queued meanwhile must still be a frame of the video, 1/framerate long. (ffmpeg's
 * own wall-clock stamps collapsed them into one and its fps filter dropped the rest: a short
 * recording ended in "the finishing pass failed", red in CI.) Real ffmpeg, started late by a
 * wrapper; the recorder is fed a still page's JPEG as the screencast would.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplayRecorder, type ReplayState } from '../../../src/engine/runtime/recorder/replay-recorder.js';
import type { SessionHandle } from '../../../src/engine/runtime/session/session-handle.js';
import type { ScreencastFrame, ScreencastSubscription } from '../../../src/engine/runtime/screencast.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-replay-timing-'));
const wrapper = path.join(dir, 'late-ffmpeg');
let jpeg: string;

beforeAll(() => {
  fs.writeFileSync(wrapper, '#!/bin/sh\nsleep 1.5\nexec ffmpeg "$@"\n', { mode: 0o755 });
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=320x240', '-frames:v', '1', path.join(dir, 'still.jpg')]);
  jpeg = fs.readFileSync(path.join(dir, 'still.jpg')).toString('base64');
  process.env.BROWSERDECK_FFMPEG = wrapper;
});
afterAll(() => {
  delete process.env.BROWSERDECK_FFMPEG;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A screencast of a still page: one frame, then nothing (Chromium sends frames on change only). */
function stillPage(): ScreencastSubscription {
  let closed = false;
  const frame = { data: jpeg, timestamp: Date.now(), metadata: {}, targetId: 't' } as unknown as ScreencastFrame;
  return {
    page: undefined,
    onPage: () => () => {},
    update: () => {},
    sendToPage: () => Promise.reject(new Error('no page')),
    close: () => (closed = true),
    async *[Symbol.asyncIterator]() {
      yield frame;
      while (!closed) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

function framesOf(file: string): { frames: number; duration: number } {
  const out = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=nb_read_frames:format=duration', '-of', 'json', file]).toString(),
  );
  return { frames: Number(out.streams[0].nb_read_frames), duration: Number(out.format.duration) };
}

describe('replay timing', () => {
  it('keeps every frame of a recording whose encoder started late', async () => {
    const states: { state: ReplayState; error?: string }[] = [];
    const log: string[] = [];
    const handle = { viewport: { width: 320, height: 240 }, holdThawed: () => () => {} } as unknown as SessionHandle;
    const rec = new ReplayRecorder(handle, {
      framerate: 5,
      maxDurationMs: 60_000,
      rawPath: path.join(dir, 'r.capture.mp4'),
      finalPath: path.join(dir, 'r.mp4'),
      log: (c) => log.push(c),
      cursor: () => ({ visible: false }),
      now: () => Date.now(),
      subscribe: () => stillPage(),
      onState: (state, info) => states.push({ state, error: info.error }),
    });
    rec.start();
    await new Promise((r) => setTimeout(r, 2000));
    await rec.stop();
    expect(states.at(-1), log.join('')).toEqual({ state: 'ready', error: undefined });
    // 2 s at 5 fps: about 10 frames, 2 s long, though ffmpeg read the first 1.5 s of them at once.
    const { frames, duration } = framesOf(path.join(dir, 'r.mp4'));
    expect(frames).toBeGreaterThanOrEqual(8);
    expect(frames).toBeLessThanOrEqual(13);
    expect(duration).toBeCloseTo(frames / 5, 1);
  }, 60_000);
});
