/**
 * Issue 25 row 8: nothing the engine inherited reaches a jail. The engine CLI is started the way
 * a launcher script might start it — from a shell that left a root-only file open on fd 200,
 * without close-on-exec — and Node's spawn and bwrap both hand such a descriptor on to every
 * child. Every jail's first process (runtime/sandbox/jail-start.ts) closes all descriptors but
 * the ones its spawn gives: a session process and Playwright code cannot read fd 200, and no
 * process of a headful session's jails (browser, Xvfb, socat doors, a recording's ffmpeg, the
 * executor) holds the file. Control: the engine process itself holds fd 200 on that file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineEntry } from '../../helpers/engine-bundle.js';
import { descendants, cmdlineOf } from '../../helpers/proc.js';

const root = path.resolve(import.meta.dirname, '../../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-inherited-fds-'));
const dataDir = path.join(work, 'data');
// Root-only: no jail user could open it by path, only through an inherited descriptor.
const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-fd-secret-'));
const SECRET_FILE = path.join(secretDir, 'launcher-secret');
const SECRET = `launcher-secret-${randomBytes(8).toString('hex')}`;

let proc: ChildProcess;
let url = '';
let client: Kernel;
let exited: Promise<unknown>;

beforeAll(async () => {
  fs.chmodSync(secretDir, 0o700);
  // Jails run as unprivileged users: they must search their way to the data dir.
  fs.chmodSync(work, 0o711);
  fs.writeFileSync(SECRET_FILE, SECRET, { mode: 0o600 });
  // bash opens fd 200 (no close-on-exec) and execs the engine CLI: one process, the engine.
  proc = spawn(
    '/bin/bash',
    ['-c', 'exec 200<"$0" && exec "$@"', SECRET_FILE, process.execPath, await engineEntry(), '--port', '0', '--data-dir', dataDir, '--standby', '0'],
    { cwd: root, env: { ...process.env, BROWSERDECK_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  exited = new Promise((resolve) => proc.on('exit', resolve));
  let out = '';
  url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Browserdeck listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`the engine exited before listening:\n${out}`)));
  });
  client = new Kernel({ apiKey: fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim(), baseURL: url, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  proc?.kill('SIGTERM');
  await exited;
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(secretDir, { recursive: true, force: true });
}, 60_000);

function uidOf(pid: number): number | undefined {
  try {
    return fs.statSync(`/proc/${pid}`).uid;
  } catch {
    return undefined;
  }
}

/** Pids among `pids` holding a descriptor on the secret file. */
function holders(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === SECRET_FILE;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

describe('no descriptor the engine inherited reaches a jail', () => {
  it('control: the engine itself holds fd 200 on the root-only file', () => {
    expect(fs.readlinkSync(`/proc/${proc.pid}/fd/200`)).toBe(SECRET_FILE);
  });

  it('a session process and Playwright code cannot read fd 200; no process of the jails holds it', async () => {
    const s = await client.browsers.create({ headless: false, timeout_seconds: 300 });
    // A recording adds the replay's ffmpeg jail.
    await client.browsers.replays.start(s.session_id, { framerate: 5 });

    const read = await client.browsers.process.exec(s.session_id, {
      command: 'python3',
      args: [
        '-c',
        "import os\nprint(sorted(int(f) for f in os.listdir('/proc/self/fd')))\ntry:\n  print(os.read(200, 200).decode())\nexcept OSError as e:\n  print('ERR', e.errno)",
      ],
    });
    const out = Buffer.from(read.stdout_b64 ?? '', 'base64').toString();
    expect(out).not.toContain(SECRET);
    expect(out).toContain('ERR 9'); // EBADF
    expect(out.split('\n')[0]).not.toMatch(/\b200\b/);

    const code = await client.browsers.playwright.execute(s.session_id, {
      code: `const fs = await import('node:fs'); try { const b = Buffer.alloc(200); const n = fs.readSync(200, b, 0, 200, 0); return b.subarray(0, n).toString(); } catch (e) { return 'ERR ' + e.code; }`,
    });
    expect(code.result).toBe('ERR EBADF');

    // Every jail process the engine started (bwrap, browser, renderers, Xvfb, socat, ffmpeg, the
    // executor, the session process's wrappers): they run as the session's host uid. (The engine's
    // own helpers, e.g. esbuild's service, stay root and hold what the engine holds.)
    const tree = descendants(proc.pid!).filter((p) => p !== proc.pid && uidOf(p) !== 0);
    expect(tree.some((p) => cmdlineOf(p).includes('ffmpeg'))).toBe(true);
    expect(tree.some((p) => cmdlineOf(p).startsWith('Xvfb'))).toBe(true);
    expect(holders(tree).map((p) => cmdlineOf(p).slice(0, 120))).toEqual([]);
    await client.browsers.deleteByID(s.session_id);
  }, 180_000);
});
