/**
 * THE REGISTRY OF SESSION PANE TABS — the one place to plug a pane in.
 *
 * Each entry is a tab of the session view (`#/sessions/<id>/<tab id>`; keys 1–9 switch tabs
 * in this order). To add a pane, write `sessions/panes/<id>-pane.tsx` exporting a
 * `ComponentType<PaneProps>` and add an entry here. See src/renderer/README.md. Panes without
 * `needsLiveSession` also show an ended session: what the engine recorded (its post-mortem).
 */
import type { PaneDef } from './pane-types';
import { OverviewPane } from './overview-pane';
import { LivePane } from './live-pane';
import { FilesPane } from './files-pane';
import { ProcessesPane } from './processes-pane';
import { LogsPane } from './logs-pane';
import { TelemetryPane } from './telemetry-pane';
import { ReplaysPane } from './replays-pane';
import { CodePane } from './code-pane';
import { HttpPane } from './http-pane';
import { InspectPane } from './inspect-pane';

export const SESSION_PANES: PaneDef[] = [
  { id: 'overview', title: 'Overview', component: OverviewPane },
  { id: 'live', title: 'Live view', component: LivePane, needsLiveSession: true },
  { id: 'files', title: 'Files', component: FilesPane, needsLiveSession: true },
  { id: 'processes', title: 'Processes', component: ProcessesPane },
  { id: 'logs', title: 'Logs', component: LogsPane },
  { id: 'telemetry', title: 'Telemetry', component: TelemetryPane },
  { id: 'replays', title: 'Replays', component: ReplaysPane },
  { id: 'code', title: 'Code', component: CodePane, needsLiveSession: true },
  { id: 'http', title: 'HTTP', component: HttpPane, needsLiveSession: true },
  { id: 'inspect', title: 'Inspect', component: InspectPane },
];
