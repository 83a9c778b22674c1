/**
 * The engine's host command helper (runtime/host-commands): the session disks' commands and the
 * browsers' jails are forked by a small process beside the engine, never by the engine itself, and
 * neither the helper nor what it started outlives the engine.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostCommands } from '../../src/engine/runtime/host-commands/host-commands.js';
import type { StartedProcess } from '../../src/engine/runtime/chromium/started-process.js';

/** The pid of whatever forked the command: `$PPID` of a shell the command runs. */
const parentOf = async (c: HostCommands) => Number((await c.run('/bin/sh', ['-c', 'echo $PPID'], { timeoutMs: 10_000 })).stdout.trim());

describe('HostCommands', () => {
  it('runs commands in its helper, not forked from this process, and ends the helper at close', () =>
    withCommands(async (c) => {
      const helper = await parentOf(c);
      expect(helper).not.toBe(process.pid);
      // One helper for every command.
      expect(await parentOf(c)).toBe(helper);
      c.close();
      await expect.poll(() => isAlive(helper), { timeout: 10_000 }).toBe(false);
      // Closed: commands still run, from this process.
      expect(await parentOf(c)).toBe(process.pid);
    }));

  it('rejects a failing command with its exit code and stderr, as execFile does', () =>
    withCommands(async (c) => {
      const err = await c.run('/bin/sh', ['-c', 'echo nope >&2; exit 3'], { timeoutMs: 10_000 }).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).toMatchObject({ code: 3, stderr: 'nope\n' });
      const slow = await c.run('/bin/sh', ['-c', 'sleep 5'], { timeoutMs: 200 }).catch((e) => e);
      expect(slow).toMatchObject({ signal: 'SIGTERM' });
    }));

  it('fails the commands in flight when the helper dies, and starts a new one for the next', () =>
    withCommands(async (c) => {
      const helper = await parentOf(c);
      // Short: the helper's death orphans it, and nothing should outlive the test for long.
      const inFlight = c.run('/bin/sh', ['-c', 'sleep 1'], { timeoutMs: 10_000 });
      process.kill(helper, 'SIGKILL');
      await expect(inFlight).rejects.toThrow(/helper exited/);
      const next = await parentOf(c);
      expect(next).not.toBe(helper);
      expect(next).not.toBe(process.pid);
    }));

  it('fails a command its helper does not answer in time, kills that helper, and runs the next in a new one', () =>
    withCommands(async (c) => {
      const helper = await parentOf(c);
      // A helper that answers nothing (stopped): without a deadline, a session's unmount would wait forever.
      process.kill(helper, 'SIGSTOP');
      const stuck = await c.run('/bin/true', [], { timeoutMs: 200 }).catch((e: Error) => e);
      expect(stuck).toBeInstanceOf(Error);
      expect((stuck as Error).message).toMatch(/did not answer \/bin\/true within 500 ms/);
      await expect.poll(() => isAlive(helper), { timeout: 10_000 }).toBe(false);
      const next = await parentOf(c);
      expect(next).not.toBe(helper);
      expect(next).not.toBe(process.pid);
    }, 300));

  it("a replaced helper's death fails only its own commands", () =>
    withCommands(async (c) => {
      const old = await parentOf(c);
      process.kill(old, 'SIGSTOP');
      // The stuck command gives up on the old helper; the next goes to a new one and is in flight
      // when the old one's death is seen.
      const stuck = c.run('/bin/true', [], { timeoutMs: 100 }).catch((e: Error) => e);
      await stuck;
      const inNew = c.run('/bin/sh', ['-c', 'sleep 0.5; echo done'], { timeoutMs: 10_000 });
      expect((await inNew).stdout).toBe('done\n');
    }, 300));
});

/** A `HostCommands` for `fn`, closed after it whatever happens (`answerGraceMs`, `startAnswerMs` as its constructor takes them). */
async function withCommands(fn: (c: HostCommands) => Promise<void>, answerGraceMs?: number, startAnswerMs?: number): Promise<void> {
  const c = new HostCommands(answerGraceMs, startAnswerMs);
  try {
    await fn(c);
  } finally {
    c.close();
  }
}

/** A shell with a `sleep 60` child, in a group of its own, started by `c`; resolves once it says it is up. */
async function sleeper(c: HostCommands): Promise<StartedProcess> {
  const p = await c.start('/bin/sh', ['-c', 'sleep 60 & echo started >&2; wait'], { PATH: process.env.PATH });
  await new Promise<void>((r) => p.stderr.once('data', () => r()));
  return p;
}

/** Everything `p` writes to stderr until it exits. */
async function stderrOf(p: StartedProcess): Promise<string> {
  let text = '';
  p.stderr.on('data', (c: string) => (text += c));
  await p.exited;
  return text;
}

/** `$PPID` and `$$` of a shell, and its process group (ps): `start` must make it lead a group of its own. */
const SHOW_IDS = 'echo "ppid=$PPID pid=$$ pgid=$(ps -o pgid= -p $$ | tr -d " ") env=$BD_TEST_VAR" >&2';

describe('HostCommands.start', () => {
  it('starts a long-running process in the helper, in a group of its own, with exactly the env given; streams its stderr and exit', () =>
    withCommands(async (c) => {
      const helper = await parentOf(c);
      const p = await c.start('/bin/sh', ['-c', `${SHOW_IDS}; exit 7`], { PATH: process.env.PATH, BD_TEST_VAR: 'given' });
      const [text, exit] = await Promise.all([stderrOf(p), p.exited]);
      expect(text.trim()).toBe(`ppid=${helper} pid=${p.pid} pgid=${p.pid} env=given`);
      expect(exit).toEqual({ code: 7, signal: null });
    }));

  it('rejects a program that cannot be started', () =>
    withCommands(async (c) => {
      await expect(c.start('/nonexistent/program', [], {})).rejects.toThrow(/ENOENT/);
    }));

  it('takes what it started along when the helper dies, each reporting a kill', () =>
    withCommands(async (c) => {
      const helper = await parentOf(c);
      // A shell in its own group with a child of its own: the whole group must go.
      const p = await sleeper(c);
      process.kill(helper, 'SIGKILL');
      expect(await p.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await expect.poll(() => groupAlive(p.pid), { timeout: 10_000 }).toBe(false);
      // The next start gets a new helper.
      const next = await c.start('/bin/sh', ['-c', 'echo ppid=$PPID >&2'], { PATH: process.env.PATH });
      const ppid = Number(/ppid=(\d+)/.exec(await stderrOf(next))?.[1]);
      expect(ppid).not.toBe(helper);
      expect(ppid).not.toBe(process.pid);
    }));

  it('gives up on a helper that does not answer a start, starts the next in a new one, and kills what the old one reports late', () =>
    withCommands(
      async (c) => {
        const old = await parentOf(c);
        // A running process of the old helper: it must survive the give-up (no kill of that helper).
        const running = await sleeper(c);
        process.kill(old, 'SIGSTOP');
        const marker = `bd-late-start-${process.pid}-${Date.now()}`;
        const ran = path.join(os.tmpdir(), `${marker}.ran`);
        const stuck = await c.start('/bin/sh', ['-c', `: > ${ran}; sleep 60; : ${marker}`], { PATH: process.env.PATH }).catch((e: Error) => e);
        expect(stuck).toBeInstanceOf(Error);
        expect((stuck as Error).message).toMatch(/did not start \/bin\/sh within 300 ms/);
        const next = await c.start('/bin/sh', ['-c', 'echo ppid=$PPID >&2'], { PATH: process.env.PATH });
        expect(Number(/ppid=(\d+)/.exec(await stderrOf(next))?.[1])).not.toBe(old);
        process.kill(old, 'SIGCONT');
        // The late one is reported, and killed at once; the old helper's running process is untouched.
        // Its first act marks that it ran; the kill may come before that, so the wait for the mark is bounded.
        await expect
          .poll(() => fs.existsSync(ran), { timeout: 3_000 })
          .toBe(true)
          .catch(() => {});
        await expect.poll(() => withMarker(marker), { timeout: 10_000 }).toEqual([]);
        expect(groupAlive(running.pid)).toBe(true);
        fs.rmSync(ran, { force: true });
      },
      undefined,
      300,
    ));

  it('ends what it started when the engine closes it or goes away, unjailed processes too', async () => {
    const c = new HostCommands();
    const p = await sleeper(c);
    // close() is what the engine's stop does.
    c.close();
    await expect.poll(() => groupAlive(p.pid), { timeout: 10_000 }).toBe(false);
  });

  it('ends what it started when the engine process is killed (kill -9: the engine runs no code of its own)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-hc-kill-'));
    try {
      const script = path.join(dir, 'engine.mts');
      const module = path.resolve('src/engine/runtime/host-commands/host-commands.ts');
      fs.writeFileSync(
        script,
        `import { HostCommands } from ${JSON.stringify(module)};\n` +
          `const p = await new HostCommands().start('/bin/sh', ['-c', 'sleep 60 & echo started >&2; wait'], { PATH: process.env.PATH });\n` +
          `p.stderr.once('data', () => { console.log(p.pid); process.kill(process.pid, 'SIGKILL'); });\n`,
      );
      const out = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
      expect(out.signal).toBe('SIGKILL');
      const pgid = Number(out.stdout.trim());
      expect(pgid).toBeGreaterThan(1);
      await expect.poll(() => groupAlive(pgid), { timeout: 10_000 }).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts from this process once closed', async () => {
    const c = new HostCommands();
    c.close();
    const p = await c.start('/bin/sh', ['-c', 'echo ppid=$PPID >&2'], { PATH: process.env.PATH });
    expect(await stderrOf(p)).toBe(`ppid=${process.pid}\n`);
  });
});

/** Pids whose command line carries `marker` (the shell's script: `sleep 60; : <marker>`). */
function withMarker(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
