/**
 * The desktop's engine settings (the Settings page): port, data dir, whether sessions may reach
 * this machine, standby browsers. Rules only, no I/O: what a valid value is and the message
 * when it is not, so the page can show why a value was refused. settings-store.ts persists
 * them and checks what needs the machine (a free port, a writable data dir); the engine host
 * applies them at the next start.
 */
import path from 'node:path';
import type { DesktopSettings, DesktopSettingsInput } from '../shared/ipc/contract.js';
import type { HostSettings } from './engine-host.js';

export const DEFAULT_SETTINGS: DesktopSettings = { port: 0, dataDir: '', egressLoopback: true, standby: null, standbyMemoryMb: null };

/** A refused value, naming the field so the page can put the message beside it. */
export class SettingsError extends Error {
  constructor(
    readonly field: keyof DesktopSettings,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}

const MAX_STANDBY = 32;
const MAX_STANDBY_MEMORY_MB = 65_536;

/** A number as typed: '' and null are "unset", text must be all digits (a sign or a decimal point is refused later). */
function numeric(v: unknown, unset: number | null): number | null {
  if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) return unset;
  if (typeof v === 'number') return v;
  const t = String(v).trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
}

/** Checks and normalises the page's input; throws a SettingsError naming the first bad field. */
export function validateSettings(input: DesktopSettingsInput): DesktopSettings {
  const { egressLoopback } = input;
  const port = numeric(input.port, 0) as number;
  const standby = numeric(input.standby, null);
  const standbyMemoryMb = numeric(input.standbyMemoryMb, null);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new SettingsError(
      'port',
      `port ${Number.isNaN(port) ? JSON.stringify(input.port) : port} is not a TCP port: use a whole number from 1024 to 65535, or 0 for a free port at each start`,
    );
  if (port > 0 && port < 1024)
    throw new SettingsError('port', `port ${port} needs administrator rights (below 1024): use 1024 to 65535, or 0 for a free port at each start`);
  if (typeof egressLoopback !== 'boolean') throw new SettingsError('egressLoopback', 'allowing sessions to reach this computer is on or off');
  if (typeof input.dataDir !== 'string') throw new SettingsError('dataDir', 'the data dir is a path');
  const dataDir = input.dataDir.trim();
  if (dataDir && !path.isAbsolute(dataDir)) throw new SettingsError('dataDir', `the data dir must be an absolute path (${dataDir} is relative)`);
  if (dataDir.includes('\0')) throw new SettingsError('dataDir', 'the data dir may not contain a NUL character');
  if (standby !== null && (!Number.isInteger(standby) || standby < 0 || standby > MAX_STANDBY))
    throw new SettingsError('standby', `standby browsers must be a whole number from 0 to ${MAX_STANDBY} (or empty for the engine's default)`);
  if (standbyMemoryMb !== null && (!Number.isInteger(standbyMemoryMb) || standbyMemoryMb < 0 || standbyMemoryMb > MAX_STANDBY_MEMORY_MB))
    throw new SettingsError(
      'standbyMemoryMb',
      `standby memory must be a whole number of MB from 0 to ${MAX_STANDBY_MEMORY_MB} (or empty for the engine's default)`,
    );
  return { port, dataDir: dataDir ? path.normalize(dataDir) : '', egressLoopback, standby, standbyMemoryMb };
}

/** A stored file from an older or hand-edited app: each field that is not valid falls back to its default. */
export function settingsFromFile(stored: unknown): DesktopSettings {
  const o = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const out: DesktopSettings = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as Array<keyof DesktopSettings>) {
    if (!(key in o)) continue;
    try {
      Object.assign(out, { [key]: validateSettings({ ...DEFAULT_SETTINGS, [key]: o[key] } as DesktopSettingsInput)[key] });
    } catch {
      // Not valid: the default stays.
    }
  }
  return out;
}

/** The engine host's view: empty fields are the engine's defaults. */
export function hostSettings(s: DesktopSettings): Partial<HostSettings> {
  return {
    port: s.port,
    egressLoopback: s.egressLoopback,
    ...(s.dataDir ? { dataDir: s.dataDir } : {}),
    ...(s.standby !== null ? { standby: s.standby } : {}),
    ...(s.standbyMemoryMb !== null ? { standbyMemoryMb: s.standbyMemoryMb } : {}),
  };
}

/** Whether the engine must restart for `next` to take effect. */
export function needsRestart(applied: DesktopSettings, next: DesktopSettings): boolean {
  return (Object.keys(DEFAULT_SETTINGS) as Array<keyof DesktopSettings>).some((k) => applied[k] !== next[k]);
}
