/**
 * Large files stream through the engine: a 200 MB write (raw body through the official client)
 * and read keep the engine's memory flat. The engine runs as its own process (the server CLI)
 * so its RSS (/proc/<pid>/status) is measured alone, without the client's buffers; its growth
 * must stay far below the file size. Contents are verified by hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { engineEntry } from '../../helpers/engine-bundle.js';

const SIZE = 200 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const repo = path.resolve(import.meta.dirname, '../../..');

let proc: ChildProcess;
let dataDir: string;
let client: Kernel;
let id: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-stream-'));
  proc = spawn(process.execPath, [await engineEntry(), '--port', '0', '--data-dir', dataDir], {
    cwd: repo,
    env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`engine exited (${code}): ${out}`)));
  });
  const apiKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
  client = new Kernel({ apiKey, baseURL: url, maxRetries: 0 });
  id = (await client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
}, 120_000);

afterAll(async () => {
  if (id) await client.browsers.deleteByID(id).catch(() => {});
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function engineRss(): number {
  const status = fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

function sampler(): { stop(): number } {
  const base = engineRss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, engineRss())), 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, engineRss()) - base;
    },
  };
}

function generated(hash: ReturnType<typeof createHash>): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i * CHUNK >= SIZE) return controller.close();
      const c = Buffer.alloc(CHUNK, i % 251);
      c.writeUInt32LE(i++, 0);
      hash.update(c);
      controller.enqueue(c);
    },
  });
}

describe('streaming large files', () => {
  it('writes and reads 200 MB while the engine RSS stays flat', { timeout: 240_000 }, async () => {
    const sentHash = createHash('sha256');
    const writeMem = sampler();
    // The client accepts a stream at runtime (sent chunked); its type only names Blob and buffers.
    await client.browsers.fs.writeFile(id, generated(sentHash) as unknown as Blob, { path: '/big/file.bin' });
    const writeGrowth = writeMem.stop();
    expect((await client.browsers.fs.fileInfo(id, { path: '/big/file.bin' })).size_bytes).toBe(SIZE);

    const readMem = sampler();
    const res = await client.browsers.fs.readFile(id, { path: '/big/file.bin' });
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    const gotHash = createHash('sha256');
    let got = 0;
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
      gotHash.update(c);
      got += c.length;
    }
    const readGrowth = readMem.stop();
    expect(got).toBe(SIZE);
    expect(gotHash.digest('hex')).toBe(sentHash.digest('hex'));
    console.log(
      `engine RSS growth: write ${(writeGrowth / 1048576).toFixed(1)} MB, read ${(readGrowth / 1048576).toFixed(1)} MB for a ${SIZE / 1048576} MB file`,
    );
    expect(writeGrowth).toBeLessThan(50 * 1024 * 1024);
    expect(readGrowth).toBeLessThan(50 * 1024 * 1024);
    await client.browsers.fs.deleteDirectory(id, { path: '/big' });
  });
});
