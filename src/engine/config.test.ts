/** resolveConfig's rules that the table of options (config-options.test.ts) does not show: where the data lives, loopback egress, and the standby launch range. */
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, resolveConfig } from './config.js';

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

describe('egressLoopback', () => {
  it('is off unless the option or BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1 turns it on; the option wins', () => {
    expect(resolveConfig({ env: {} }).egressLoopback).toBe(false);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: '1' } }).egressLoopback).toBe(true);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: 'yes' } }).egressLoopback).toBe(false);
    expect(resolveConfig({ env: {}, egressLoopback: true }).egressLoopback).toBe(true);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: '1' }, egressLoopback: false }).egressLoopback).toBe(false);
  });
});

describe('retention', () => {
  it('keeps replays a week and post-mortems as long as replays unless told otherwise', () => {
    expect(resolveConfig({ env: {} })).toMatchObject({ replayRetentionHours: 168, postmortemRetentionHours: 168 });
    expect(resolveConfig({ env: { BROWSERDECK_REPLAY_RETENTION_HOURS: '24' } })).toMatchObject({ replayRetentionHours: 24, postmortemRetentionHours: 24 });
    expect(resolveConfig({ env: { BROWSERDECK_POSTMORTEM_RETENTION_HOURS: '2' } })).toMatchObject({ replayRetentionHours: 168, postmortemRetentionHours: 2 });
    expect(() => resolveConfig({ env: {}, postmortemRetentionHours: 0 })).toThrow('--postmortem-retention-hours must be a positive number of hours');
  });
});

describe('standby launches at once', () => {
  it('range from one to two per core by default; a given number (flag or BROWSERDECK_STANDBY_LAUNCHES) is fixed', () => {
    const cores = Math.max(1, os.availableParallelism());
    expect(resolveConfig({ env: {} })).toMatchObject({ standbyLaunches: cores, standbyLaunchesMax: 2 * cores });
    expect(resolveConfig({ env: {}, standbyLaunches: 3 })).toMatchObject({ standbyLaunches: 3, standbyLaunchesMax: 3 });
    expect(resolveConfig({ env: { BROWSERDECK_STANDBY_LAUNCHES: '1' } })).toMatchObject({ standbyLaunches: 1, standbyLaunchesMax: 1 });
  });
});
