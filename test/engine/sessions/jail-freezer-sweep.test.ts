/**
 * Freezer groups an engine left behind (it died before ending its sessions) are removed by the
 * next engine's probe: a cgroup directory goes with rmdir once empty. The sweep used rm, which
 * refuses a directory, so every dead engine's groups stayed below the engine's cgroup for good.
 *
 * @own-process the probe it tests runs once per process.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freezeMethod } from '../../../src/engine/runtime/session/jail-freezer.js';
import { ownCgroupDir } from '../../../src/engine/runtime/sandbox/cgroup-dirs.js';

describe('freezer groups of dead engines', () => {
  it('are removed by the next probe', () => {
    const base = process.platform === 'linux' ? ownCgroupDir('v2') : undefined;
    const leftover = base && path.join(base, `bd-${spawnSync('true').pid}-leftover`);
    try {
      if (leftover) fs.mkdirSync(leftover);
    } catch {
      // No group can be made here (not delegated): the engine freezes with signals, nothing to sweep.
      expect(freezeMethod().method).not.toBe('cgroup');
      return;
    }
    try {
      expect(freezeMethod().method).toBe('cgroup');
      expect(fs.existsSync(leftover!)).toBe(false);
    } finally {
      if (fs.existsSync(leftover!)) fs.rmdirSync(leftover!);
    }
  });
});
