/**
 * THE REGISTRY OF SESSION PANE TABS — the one place to plug a pane in.
 *
 * Each entry is a tab of the session view (`#/sessions/<id>/<tab id>`). Entries without a
 * `component` are PLACEHOLDERS: their tab says "coming soon" and shows no data. To build a
 * pane, write `sessions/panes/<id>-pane.tsx` exporting a `ComponentType<PaneProps>` and set
 * `component` here. See src/renderer/README.md.
 */
import type { PaneDef } from './pane-types';
import { OverviewPane } from './overview-pane';

export const SESSION_PANES: PaneDef[] = [
  { id: 'overview', title: 'Overview', component: OverviewPane },
  // Placeholders below: to be built by the session-pane work (issue 7, item 2).
  { id: 'live', title: 'Live view', needsLiveSession: true },
  { id: 'files', title: 'Files', needsLiveSession: true },
  { id: 'processes', title: 'Processes', needsLiveSession: true },
  { id: 'logs', title: 'Logs', needsLiveSession: true },
  { id: 'telemetry', title: 'Telemetry' },
  { id: 'replays', title: 'Replays' },
  { id: 'code', title: 'Code', needsLiveSession: true },
  { id: 'http', title: 'HTTP', needsLiveSession: true },
];
