/**
 * The tray (status) icon as data: its tooltip, which icon, and the menu — the engine's state and
 * running sessions on top, then Open, Start/Stop engine, Quit. index.ts turns this into
 * Electron's Tray and Menu and maps each action to the app; the model is tested under Node, and
 * docs render it as the menu Electron would show.
 */
import type { EngineStatusInfo } from '../shared/ipc/contract.js';

export type TrayAction = 'open' | 'start-engine' | 'stop-engine' | 'quit';
export type TrayIconState = 'running' | 'busy' | 'stopped' | 'error';

export type TrayItem = { type: 'separator' } | { type: 'item'; label: string; action?: TrayAction; enabled: boolean };

export interface TrayModel {
  icon: TrayIconState;
  tooltip: string;
  items: TrayItem[];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** One line for the engine: `Engine running · 2 sessions`, `Engine failed: …`. */
export function engineLine(s: EngineStatusInfo): string {
  switch (s.status) {
    case 'running':
      return `Engine running · ${plural(s.sessions, 'session')}`;
    case 'starting':
      return 'Engine starting…';
    case 'stopping':
      return 'Engine stopping…';
    case 'stopped':
      return 'Engine stopped';
    case 'error': {
      const why = (s.error ?? 'did not start').split('\n')[0];
      return `Engine failed: ${why.length > 140 ? `${why.slice(0, 139)}…` : why}`;
    }
  }
}

export function trayModel(s: EngineStatusInfo): TrayModel {
  const busy = s.status === 'starting' || s.status === 'stopping';
  const up = s.status === 'running';
  return {
    icon: up ? 'running' : busy ? 'busy' : s.status === 'error' ? 'error' : 'stopped',
    tooltip: `Browserdeck — ${engineLine(s)}`,
    items: [
      { type: 'item', label: engineLine(s), enabled: false },
      { type: 'separator' },
      { type: 'item', label: 'Open Browserdeck', action: 'open', enabled: true },
      up || s.status === 'stopping'
        ? { type: 'item', label: 'Stop engine', action: 'stop-engine', enabled: up }
        : { type: 'item', label: s.status === 'error' ? 'Start engine again' : 'Start engine', action: 'start-engine', enabled: !busy },
      { type: 'separator' },
      { type: 'item', label: 'Quit Browserdeck', action: 'quit', enabled: true },
    ],
  };
}
