/** Every feature of the engine, in registration order (stop hooks run in reverse). Their services come from compose.ts. */
import type { AnyFeature } from './feature.js';
import { auditRecordingFeature } from './http/audit-feature.js';
import { auditLogsFeature } from './api/audit-logs.js';
import { auditDestinationsFeature } from './api/audit-destinations.js';
import { healthFeature } from './api/health.js';
import { systemFeature } from './api/system.js';
import { projectsFeature } from './api/projects.js';
import { sessionsFeature } from './api/browsers.js';
import { apiKeysFeature } from './api/api-keys.js';
import { projectLimitsFeature } from './api/project-limits.js';
import { orgLimitsFeature } from './api/org-limits.js';
import { orgEntitlementsFeature } from './api/org-entitlements.js';
import { authContextFeature } from './api/auth-context.js';
import { consoleSessionFeature } from './api/console-session.js';
import { profilesFeature } from './api/profiles.js';
import { liveViewFeature } from './api/live-view.js';
import { bidiFeature } from './runtime/bidi/bidi-feature.js';
import { webdriverFeature } from './api/browsers-webdriver.js';
import { browserPoolsFeature } from './api/browser-pools.js';
import { credentialsFeature } from './api/credentials.js';
import { credentialProvidersFeature } from './api/credential-providers.js';
import { proxiesFeature } from './api/proxies.js';
import { authConnectionsFeature } from './api/auth-connections.js';
import { sessionComputerFeature } from './api/session-computer.js';
import { sessionFsFeature } from './api/session-fs.js';
import { sessionProcessesFeature } from './api/session-processes.js';
import { sessionLogsFeature } from './api/session-logs.js';
import { sessionCurlFeature } from './api/session-curl.js';
import { sessionCodeFeature } from './api/session-code.js';
import { sessionTelemetryFeature } from './api/session-telemetry.js';
import { sessionReplaysFeature } from './api/session-replays.js';
import { sessionDevtoolsFeature } from './api/session-devtools.js';
import { sessionTraceFeature } from './api/session-trace.js';
import { sessionHarFeature } from './api/session-har.js';
import { sessionWebMcpFeature } from './api/session-webmcp.js';
import { sessionProfileSaveFeature } from './api/session-profile-save.js';
import { appsFeature } from './api/apps.js';
import { nodesFeature } from './http/node-feature.js';
import { extensionsFeature } from './api/extensions.js';
import { changesFeature } from './api/changes.js';
import { telemetryDestinationsFeature } from './api/telemetry-destinations.js';
import { mcpFeature } from './api/mcp-endpoint.js';

export const features: AnyFeature[] = [
  auditRecordingFeature,
  healthFeature,
  systemFeature,
  projectsFeature,
  sessionsFeature,
  apiKeysFeature,
  projectLimitsFeature,
  orgLimitsFeature,
  orgEntitlementsFeature,
  authContextFeature,
  consoleSessionFeature,
  profilesFeature,
  extensionsFeature,
  liveViewFeature,
  bidiFeature,
  webdriverFeature,
  browserPoolsFeature,
  auditLogsFeature,
  auditDestinationsFeature,
  credentialsFeature,
  credentialProvidersFeature,
  proxiesFeature,
  authConnectionsFeature,
  sessionComputerFeature,
  sessionFsFeature,
  sessionProcessesFeature,
  sessionLogsFeature,
  sessionCurlFeature,
  sessionCodeFeature,
  sessionTelemetryFeature,
  telemetryDestinationsFeature,
  sessionReplaysFeature,
  sessionDevtoolsFeature,
  sessionTraceFeature,
  sessionHarFeature,
  sessionWebMcpFeature,
  sessionProfileSaveFeature,
  appsFeature,
  nodesFeature,
  changesFeature,
  mcpFeature,
];
