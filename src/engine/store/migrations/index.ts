/**
 * Every migration of the engine, in order. Each feature adds its own file; names sort by their
 * numeric prefix. A migration receives the dialect so it can pick column types that differ.
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../database.js';
import { orgMigration } from './0001-org.js';
import { orgKeysMigration } from './0002-org-keys.js';
import { profilesMigration } from './0003-profiles.js';
import { sessionsMigration } from './0004-sessions.js';
import { identityMigration } from './0005-identity.js';
import { poolsMigration } from './0006-pools.js';
import { replaysMigration } from './0008-replays.js';
import { appsMigration } from './0007-apps.js';
import { authTimelineReplayMigration } from './0009-auth-timeline-replay.js';
import { engineNodesMigration } from './0010-engine-nodes.js';
import { extensionsMigration } from './0011-extensions.js';
import { credentialProvidersMigration } from './0012-credential-providers.js';
import { consoleSessionsMigration } from './0013-console-sessions.js';
import { telemetryDestinationsMigration } from './0014-telemetry-destinations.js';
import { auditExportDestinationsMigration } from './0015-audit-export-destinations.js';
import { proxyCaBundleMigration } from './0016-proxy-ca-bundle.js';
import { engineNodeRegionMigration } from './0017-engine-node-region.js';
import { engineNodeLeaseMigration } from './0019-engine-node-lease.js';
import { endedByStatusReasonMigration } from './0018-ended-by-status-reason.js';

type MigrationFactory = (dialect: DialectName) => Migration;

const migrations: Record<string, MigrationFactory> = {
  '0001-org': orgMigration,
  '0002-org-keys': orgKeysMigration,
  '0003-profiles': profilesMigration,
  '0004-sessions': sessionsMigration,
  '0005-identity': identityMigration,
  '0006-pools': poolsMigration,
  '0008-replays': replaysMigration,
  '0007-apps': appsMigration,
  '0009-auth-timeline-replay': authTimelineReplayMigration,
  '0010-engine-nodes': engineNodesMigration,
  '0011-extensions': extensionsMigration,
  '0012-credential-providers': credentialProvidersMigration,
  '0013-console-sessions': consoleSessionsMigration,
  '0014-telemetry-destinations': telemetryDestinationsMigration,
  '0015-audit-export-destinations': auditExportDestinationsMigration,
  '0016-proxy-ca-bundle': proxyCaBundleMigration,
  '0017-engine-node-region': engineNodeRegionMigration,
  '0018-ended-by-status-reason': endedByStatusReasonMigration,
  '0019-engine-node-lease': engineNodeLeaseMigration,
};

export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      return Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(dialect)]));
    },
  };
}
