/** What every session pane receives. See src/renderer/README.md for how to add one. */
import type { ComponentType } from 'react';
import type { Session } from '../../../../shared/wire/sessions';

export interface PaneProps {
  session: Session;
  /** Refetches the session object (e.g. after a PATCH). */
  reload(): void;
}

export interface PaneDef {
  id: string;
  title: string;
  component: ComponentType<PaneProps>;
  /** Hidden for deleted sessions (panes that need a live browser). */
  needsLiveSession?: boolean;
}
