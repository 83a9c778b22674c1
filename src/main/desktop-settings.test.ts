import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, hostSettings, needsRestart, settingsFromFile, SettingsError, validateSettings } from './desktop-settings.js';

const ok = { ...DEFAULT_SETTINGS };
const refused = (input: Partial<Record<keyof typeof ok, unknown>>): SettingsError => {
  try {
    validateSettings({ ...ok, ...input } as never);
  } catch (err) {
    if (err instanceof SettingsError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
};

describe('desktop settings', () => {
  it('accepts a free port (0), a fixed one, typed numbers and empty defaults', () => {
    expect(validateSettings(ok)).toEqual(ok);
    expect(validateSettings({ ...ok, port: '8420', standby: '2', standbyMemoryMb: ' 512 ', dataDir: ' /srv/bd/ ' })).toEqual({
      ...ok,
      port: 8420,
      standby: 2,
      standbyMemoryMb: 512,
      dataDir: '/srv/bd/',
    });
    expect(validateSettings({ ...ok, port: '', standby: '', standbyMemoryMb: null })).toEqual(ok);
  });

  it('refuses a bad port with a message naming it and what to use instead', () => {
    expect(refused({ port: 70000 })).toMatchObject({
      field: 'port',
      message: expect.stringContaining('port 70000 is not a TCP port: use a whole number from 1024 to 65535'),
    });
    expect(refused({ port: '80.5' }).message).toContain('port 80.5 is not a TCP port');
    expect(refused({ port: 'http' }).message).toContain('port "http" is not a TCP port');
    expect(refused({ port: -1 }).field).toBe('port');
    expect(refused({ port: 80 }).message).toBe('port 80 needs administrator rights (below 1024): use 1024 to 65535, or 0 for a free port at each start');
  });

  it('refuses a relative data dir, and bad standby numbers', () => {
    expect(refused({ dataDir: 'data' })).toMatchObject({ field: 'dataDir', message: 'the data dir must be an absolute path (data is relative)' });
    expect(refused({ standby: 1.5 }).field).toBe('standby');
    expect(refused({ standby: 33 }).field).toBe('standby');
    expect(refused({ standbyMemoryMb: '-5' }).field).toBe('standbyMemoryMb');
    expect(refused({ egressLoopback: 'yes' }).field).toBe('egressLoopback');
  });

  it('reads a stored file field by field: a bad or missing field keeps its default', () => {
    expect(settingsFromFile(undefined)).toEqual(ok);
    expect(settingsFromFile({ port: 9000, dataDir: 'relative', egressLoopback: false, standby: 'x', extra: 1 })).toEqual({
      ...ok,
      port: 9000,
      egressLoopback: false,
    });
  });

  it('maps to the engine host, leaving defaults unset, and knows when a restart is due', () => {
    expect(hostSettings(ok)).toEqual({ port: 0, egressLoopback: true });
    expect(hostSettings({ ...ok, dataDir: '/d', standby: 0, standbyMemoryMb: 256 })).toEqual({
      port: 0,
      egressLoopback: true,
      dataDir: '/d',
      standby: 0,
      standbyMemoryMb: 256,
    });
    expect(needsRestart(ok, { ...ok })).toBe(false);
    expect(needsRestart(ok, { ...ok, standby: 1 })).toBe(true);
  });
});
