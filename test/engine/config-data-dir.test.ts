import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../src/engine/config.js';

const root = process.platform === 'linux' && process.getuid?.() === 0;

describe('defaultDataDir', () => {
  it('follows BROWSERDECK_DATA_DIR, then XDG_DATA_HOME', () => {
    expect(defaultDataDir({ BROWSERDECK_DATA_DIR: '/srv/bd' })).toBe('/srv/bd');
    if (process.platform === 'linux') expect(defaultDataDir({ XDG_DATA_HOME: '/x/share' })).toBe('/x/share/browserdeck');
  });

  // A root engine's jails are unprivileged users who cannot pass root's 0700 home.
  it.runIf(root)('is /var/lib/browserdeck for root on Linux', () => {
    expect(defaultDataDir({})).toBe('/var/lib/browserdeck');
  });

  it.runIf(process.platform === 'linux' && !root)('is under ~/.local/share for anyone else on Linux', () => {
    expect(defaultDataDir({})).toBe(path.join(os.homedir(), '.local', 'share', 'browserdeck'));
  });
});
