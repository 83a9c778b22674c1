/**
 * Replays through the official client against a real headless session: start → interact →
 * stop → download an H.264 MP4 with a real duration and its moov before mdat (faststart);
 * double and concurrent stops; 202 + Retry-After while recording; exact bytes for ranges and
 * 416 for bad ones; max duration; recordings finished and kept when the session ends, deleted
 * by the retention sweeper; bad framerates, audio, and unknown ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { cmdlineOf, parentOf } from '../../helpers/proc.js';

let te: TestEngine;
let id: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-replay-test-'));

beforeAll(async () => {
  te = await startTestEngine();
  const s = await te.client.browsers.create({
    headless: true,
    timeout_seconds: 300,
    viewport: { width: 640, height: 480 },
    start_url: 'data:text/html,<body style="background:%23c33">replay</body>',
  });
  id = s.session_id;
}, 60_000);

afterAll(async () => {
  await te?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Top-level MP4 box types in file order. */
function boxes(buf: Buffer): string[] {
  const out: string[] = [];
  for (let o = 0; o + 8 <= buf.length;) {
    let size = buf.readUInt32BE(o);
    const type = buf.toString('latin1', o + 4, o + 8);
    if (size === 1) size = Number(buf.readBigUInt64BE(o + 8));
    out.push(type);
    if (size < 8) break;
    o += size;
  }
  return out;
}

function probe(file: string): { codec: string; duration: number } {
  const out = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file]).toString());
  return { codec: out.streams[0].codec_name, duration: Number(out.format.duration) };
}

async function downloadWhenReady(sessionId: string, replayId: string): Promise<Buffer> {
  let res!: Response;
  await expect
    .poll(
      async () => {
        res = await te.client.browsers.replays.download(replayId, { id: sessionId });
        return res.status;
      },
      { timeout: 60_000, interval: 500 },
    )
    .toBe(200);
  expect(res.headers.get('content-type')).toBe('video/mp4');
  expect(res.headers.get('accept-ranges')).toBe('bytes');
  return Buffer.from(await res.arrayBuffer());
}

describe('replays', () => {
  it('refuses bad parameters and unknown ids', async () => {
    await expect(te.client.browsers.replays.start(id, { framerate: 60 })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('GPU') });
    await expect(te.client.browsers.replays.start(id, { framerate: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(te.client.browsers.replays.start(id, { record_audio: true })).rejects.toMatchObject({ status: 422 });
    await expect(te.client.browsers.replays.start(id, { max_duration_in_seconds: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(te.client.browsers.replays.stop('nope', { id })).rejects.toMatchObject({ status: 404 });
    await expect(te.client.browsers.replays.download('nope', { id })).rejects.toMatchObject({ status: 404 });
    await expect(te.client.browsers.replays.list('no-such-session')).rejects.toMatchObject({ status: 404 });
    await expect(te.client.browsers.replays.start('no-such-session')).rejects.toMatchObject({ status: 404 });
    expect(await te.client.browsers.replays.list(id)).toEqual([]);
  });

  it('records, stops idempotently, and serves a faststart H.264 MP4 with ranges', async () => {
    const r = await te.client.browsers.replays.start(id, { framerate: 10 });
    expect(r).toMatchObject({ replay_id: expect.any(String), started_at: expect.any(String), finished_at: null });
    expect(r.replay_view_url).toContain(`/browsers/${id}/replays/${r.replay_id}/view?jwt=`);
    await expect(te.client.browsers.replays.start(id)).rejects.toMatchObject({ status: 409 });
    // The encoder runs in the helper jail: bwrap is its parent and it cannot see the data dir.
    // start answers once bwrap is spawned; the ffmpeg inside may exec a moment later.
    let encoder: number | undefined;
    await expect.poll(() => (encoder = ffmpegOf(r.replay_id)), { timeout: 10_000, message: 'the recorder ffmpeg' }).toBeDefined();
    expect(cmdlineOf(parentOf(encoder!))).toMatch(/^\S*bwrap /);
    expect(fs.readdirSync(`/proc/${encoder}/root${te.dataDir}`)).toEqual(['replays']);

    // While it records, the download answers 202 with Retry-After.
    const early = await te.api(`/browsers/${id}/replays/${r.replay_id}`);
    expect(early.status).toBe(202);
    expect(early.headers.get('retry-after')).toBe('1');

    // Interact: the cursor moves (drawn into the video), the page changes colour.
    await te.client.browsers.computer.moveMouse(id, { x: 100, y: 100 });
    await te.client.browsers.playwright.execute(id, { code: `await page.evaluate(() => document.body.style.background = '#3c3')` });
    await te.client.browsers.computer.moveMouse(id, { x: 300, y: 200 });
    await new Promise((res) => setTimeout(res, 1500));

    // Two concurrent stops and a late third one all succeed and leave one good file.
    await Promise.all([te.client.browsers.replays.stop(r.replay_id, { id }), te.client.browsers.replays.stop(r.replay_id, { id })]);
    await te.client.browsers.replays.stop(r.replay_id, { id });
    const bytes = await downloadWhenReady(id, r.replay_id);
    await te.client.browsers.replays.stop(r.replay_id, { id });
    const file = path.join(tmp, 'a.mp4');
    fs.writeFileSync(file, bytes);
    const p = probe(file);
    expect(p.codec).toBe('h264');
    expect(p.duration).toBeGreaterThan(0);
    const order = boxes(bytes);
    expect(order.indexOf('moov')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('moov')).toBeLessThan(order.indexOf('mdat'));
    expect(Buffer.compare(bytes, await downloadWhenReady(id, r.replay_id))).toBe(0);

    // Ranges: exact bytes, suffix ranges, 416 past the end or malformed.
    const part = await te.api(`/browsers/${id}/replays/${r.replay_id}`, { headers: { range: 'bytes=10-109' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-109/${bytes.length}`);
    expect(Buffer.compare(Buffer.from(await part.arrayBuffer()), bytes.subarray(10, 110))).toBe(0);
    const tail = await te.api(`/browsers/${id}/replays/${r.replay_id}`, { headers: { range: 'bytes=-50' } });
    expect(tail.status).toBe(206);
    expect(Buffer.compare(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 50))).toBe(0);
    for (const bad of [`bytes=${bytes.length}-`, 'bytes=50-10', 'items=0-1', 'bytes=x-y']) {
      const res = await te.api(`/browsers/${id}/replays/${r.replay_id}`, { headers: { range: bad } });
      expect(res.status, bad).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    }

    const list = await te.client.browsers.replays.list(id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ replay_id: r.replay_id, finished_at: expect.any(String) });

    // The player page behind replay_view_url works with its own JWT (no API key).
    const view = await fetch(r.replay_view_url!);
    expect(view.status).toBe(200);
    expect(await view.text()).toContain('<video');
    // ffmpeg's output went to the session's recorder log.
  }, 120_000);

  it('a stop that comes before the first frame still gives a video of the still page', async () => {
    // On a loaded machine the screencast's first frame can come after the stop; a still page sends
    // no other. The recording then waited for none and failed as empty ('no frame was captured').
    const r = await te.client.browsers.replays.start(id, { framerate: 10 });
    await te.client.browsers.replays.stop(r.replay_id, { id });
    const bytes = await downloadWhenReady(id, r.replay_id);
    const file = path.join(tmp, 'early-stop.mp4');
    fs.writeFileSync(file, bytes);
    expect(probe(file).codec).toBe('h264');
  }, 90_000);

  it('ends at max_duration_in_seconds on its own', async () => {
    const r = await te.client.browsers.replays.start(id, { framerate: 5, max_duration_in_seconds: 1 });
    const bytes = await downloadWhenReady(id, r.replay_id);
    const file = path.join(tmp, 'b.mp4');
    fs.writeFileSync(file, bytes);
    const p = probe(file);
    expect(p.duration).toBeGreaterThan(0);
    expect(p.duration).toBeLessThan(30);
  }, 90_000);

  it('finishes a recording when the session ends and keeps it until the retention sweeper deletes it', async () => {
    const r = await te.client.browsers.replays.start(id, { framerate: 5 });
    await new Promise((res) => setTimeout(res, 1000));
    await te.client.browsers.deleteByID(id);
    const bytes = await downloadWhenReady(id, r.replay_id);
    fs.writeFileSync(path.join(tmp, 'c.mp4'), bytes);
    expect(probe(path.join(tmp, 'c.mp4')).duration).toBeGreaterThan(0);
    const list = await te.client.browsers.replays.list(id);
    expect(list.map((x) => x.replay_id)).toContain(r.replay_id);
    await expect(te.client.browsers.replays.start(id)).rejects.toMatchObject({ status: 404 });

    // Expire it and sweep: row and file are gone.
    const ctx = te.engine.context;
    await ctx.db
      .updateTable('replays')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', r.replay_id)
      .execute();
    const service = te.engine.services.replays;
    const row = await service.row(
      id,
      r.replay_id,
      ctx.orgId,
      (await ctx.db.selectFrom('replays').select('project_id').where('id', '=', r.replay_id).executeTakeFirstOrThrow()).project_id,
    );
    const onDisk = service.fileOf(row!);
    expect(fs.existsSync(onDisk)).toBe(true);
    expect(await service.sweep()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(onDisk)).toBe(false);
    await expect(te.client.browsers.replays.download(r.replay_id, { id })).rejects.toMatchObject({ status: 404 });
    expect((await te.client.browsers.replays.list(id)).map((x) => x.replay_id)).not.toContain(r.replay_id);
  }, 120_000);
});

/** The pid (host view) of the ffmpeg writing this replay's capture file. */
function ffmpegOf(replayId: string): number | undefined {
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const cmd = cmdlineOf(Number(e));
    if (cmd.startsWith('ffmpeg ') && cmd.includes(`${replayId}.capture.mp4`)) return Number(e);
  }
  return undefined;
}
