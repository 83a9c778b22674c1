import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enterGroups, memoryBytes } from './memory-group.js';

describe('memoryBytes', () => {
  it('reads the session memory sizes', () => {
    expect(memoryBytes('1GiB')).toBe(1024 ** 3);
    expect(memoryBytes('16GiB')).toBe(16 * 1024 ** 3);
    expect(memoryBytes('512MiB')).toBe(512 * 1024 ** 2);
    expect(() => memoryBytes('8GB')).toThrow();
  });
});

describe('enterGroups', () => {
  it('writes the pid of the process that becomes the command into every file, with the arguments intact', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-group-'));
    try {
      const files = [path.join(dir, 'a'), path.join(dir, 'b')];
      for (const f of files) fs.writeFileSync(f, '');
      // The command prints its own pid and its arguments: the pid must be the one written (exec, no fork).
      const cmd = enterGroups([files[0], undefined, files[1]], { file: '/bin/sh', args: ['-c', 'echo $$ "$@"', 'argv0', 'x y', '$HOME'] });
      const [pid, ...args] = execFileSync(cmd.file, cmd.args, { encoding: 'utf8' }).trim().split(' ');
      expect(args.join(' ')).toBe('x y $HOME');
      for (const f of files) expect(fs.readFileSync(f, 'utf8').trim()).toBe(pid);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a command alone without groups', () => {
    const cmd = { file: '/usr/bin/bwrap', args: ['--', 'x'] };
    expect(enterGroups([undefined], cmd)).toBe(cmd);
  });
});
