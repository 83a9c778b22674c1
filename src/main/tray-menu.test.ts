import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { engineLine, trayModel, type TrayItem } from './tray-menu.js';
import { TRAY_COLORS, trayIconPng } from './tray-icon.js';

const labels = (items: TrayItem[]) =>
  items.map((i) => (i.type === 'separator' ? '---' : `${i.label}${i.enabled ? '' : ' (disabled)'}${i.action ? ` → ${i.action}` : ''}`));

describe('tray menu', () => {
  it('shows a running engine with its sessions, and offers to stop it', () => {
    const m = trayModel({ status: 'running', sessions: 2, url: 'http://127.0.0.1:1' });
    expect(m.icon).toBe('running');
    expect(m.tooltip).toBe('Browserdeck — Engine running · 2 sessions');
    expect(labels(m.items)).toEqual([
      'Engine running · 2 sessions (disabled)',
      '---',
      'Open Browserdeck → open',
      'Stop engine → stop-engine',
      '---',
      'Quit Browserdeck → quit',
    ]);
    expect(engineLine({ status: 'running', sessions: 1 })).toBe('Engine running · 1 session');
  });

  it('offers to start a stopped or failed engine, and nothing while it is busy', () => {
    expect(labels(trayModel({ status: 'stopped', sessions: 0 }).items)[3]).toBe('Start engine → start-engine');
    const failed = trayModel({ status: 'error', sessions: 0, error: `the data dir /d is in use by another engine: pid 7 (cli.ts)\nmore` });
    expect(failed.icon).toBe('error');
    expect(labels(failed.items).slice(0, 4)).toEqual([
      'Engine failed: the data dir /d is in use by another engine: pid 7 (cli.ts) (disabled)',
      '---',
      'Open Browserdeck → open',
      'Start engine again → start-engine',
    ]);
    expect(labels(trayModel({ status: 'starting', sessions: 0 }).items)[3]).toBe('Start engine (disabled) → start-engine');
    expect(labels(trayModel({ status: 'stopping', sessions: 0 }).items)[3]).toBe('Stop engine (disabled) → stop-engine');
    expect(trayModel({ status: 'stopping', sessions: 0 }).icon).toBe('busy');
  });

  it('draws its icon as a PNG dot in the state colour, transparent at the corners', () => {
    const png = trayIconPng('error', 16);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([16, 16]);
    const idatLen = png.readUInt32BE(33);
    const raw = zlib.inflateSync(png.subarray(41, 41 + idatLen));
    const px = (x: number, y: number) => [...raw.subarray(y * (1 + 16 * 4) + 1 + x * 4, y * (1 + 16 * 4) + 1 + x * 4 + 4)];
    expect(px(8, 8)).toEqual([...TRAY_COLORS.error, 255]);
    expect(px(0, 0)[3]).toBe(0);
  });
});
