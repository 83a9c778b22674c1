import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jailStart, jailStartScript } from './jail-start.js';

/** Runs `cmd` from a bash that first opened `extra` on fds 7 and 200 without close-on-exec (what a launcher script may leave). */
function runWithInherited(cmd: { file: string; args: string[] }, extra: string): string {
  const quoted = [cmd.file, ...cmd.args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return execFileSync('/bin/bash', ['-c', `exec 7<"$0" 200<"$0"; exec ${quoted}`, extra], { encoding: 'utf8' });
}

describe('jailStart', () => {
  it('writes the pid of the process that becomes the command into every file, with the arguments intact', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jail-start-'));
    try {
      const files = [path.join(dir, 'a'), path.join(dir, 'b')];
      for (const f of files) fs.writeFileSync(f, '');
      // The command prints its own pid and its arguments: the pid must be the one written (exec, no fork).
      const cmd = jailStart({ procs: [files[0], undefined, files[1]] }, 3, { file: '/bin/sh', args: ['-c', 'echo $$ "$@"', 'argv0', 'x y', '$HOME'] });
      const [pid, ...args] = execFileSync(cmd.file, cmd.args, { encoding: 'utf8' }).trim().split(' ');
      expect(args.join(' ')).toBe('x y $HOME');
      for (const f of files) expect(fs.readFileSync(f, 'utf8').trim()).toBe(pid);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes every inherited fd but the ones the spawn gives (control: without it they reach the command)', () => {
    const list = { file: '/bin/ls', args: ['/proc/self/fd'] };
    const fdsOf = (out: string) =>
      out
        .trim()
        .split('\n')
        .map(Number)
        .sort((a, b) => a - b);
    // Control: exec'd as is, ls holds 7 and 200 (and its own listing fd 3).
    expect(fdsOf(runWithInherited(list, '/etc/hostname'))).toEqual(expect.arrayContaining([7, 200]));
    expect(fdsOf(runWithInherited(jailStart(undefined, 3, list), '/etc/hostname'))).toEqual([0, 1, 2, 3]);
    // fds 0…4 given (a runner's IPC and --args pipes): 3 and 4 stay, 7 and 200 go.
    const kept = jailStart(undefined, 5, { file: '/bin/bash', args: ['-c', 'ls /proc/$$/fd'] });
    const out = execFileSync(
      '/bin/bash',
      ['-c', `exec 3</etc/hostname 4</etc/hostname 7</etc/hostname 200</etc/hostname; exec "$@"`, 'x', kept.file, ...kept.args],
      {
        encoding: 'utf8',
      },
    );
    // (ls's own listing fd is the next free one, 5.)
    expect(fdsOf(out)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('sets RLIMIT_NPROC when asked, and nothing else when not', () => {
    const limit = { file: '/bin/bash', args: ['-c', 'ulimit -u'] };
    expect(
      execFileSync(jailStart({ procs: [], nproc: 321 }, 3, limit).file, jailStart({ procs: [], nproc: 321 }, 3, limit).args, { encoding: 'utf8' }).trim(),
    ).toBe('321');
    const before = execFileSync('/bin/bash', ['-c', 'ulimit -u'], { encoding: 'utf8' }).trim();
    const run = jailStart({ procs: [] }, 3, limit);
    expect(execFileSync(run.file, run.args, { encoding: 'utf8' }).trim()).toBe(before);
  });

  it('fails the launch when a group cannot be joined (never a jail outside its limits)', () => {
    const run = jailStart({ procs: ['/nonexistent/cgroup.procs'] }, 3, { file: '/bin/echo', args: ['ran'] });
    expect(() => execFileSync(run.file, run.args, { stdio: 'pipe' })).toThrow();
  });

  it('closes 3–9 only where no bash exists (dash names no higher descriptor)', () => {
    expect(jailStartScript(4, 0, undefined, false)).toContain('for n in 3 4 5 6 7 8 9');
    expect(jailStartScript(4, 2, 100)).toBe(
      'for f in /proc/$$/fd/*; do n=${f##*/}; case $n in \'\'|*[!0-9]*) continue;; esac; [ "$n" -lt 4 ] || exec {n}<&-; done && echo $$ > "$1" && echo $$ > "$2" && shift 2 && { ulimit -u 100 2>/dev/null || :; } && exec "$@"',
    );
  });
});
