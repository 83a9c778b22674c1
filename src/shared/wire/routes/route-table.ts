/**
 * The engine's HTTP routes, all of them: for each `METHOD /path`, its schemas and its facts
 * (`route-spec.ts`). The engine registers every route from here (`src/engine/http/route.ts`:
 * one entry + one handler is a route), `/openapi.json` is generated from the registered
 * schemas, and what runs across routes (forwarding, reach, api-call telemetry, keeping a
 * session awake, the audit service) reads the facts. One file per area beside this one.
 */
import { appsRoutes } from './apps.js';
import { auditRoutes } from './audit.js';
import { authConnectionsRoutes } from './auth-connections.js';
import { credentialsRoutes } from './credentials.js';
import { engineRoutes } from './engine.js';
import { extensionsRoutes } from './extensions.js';
import { mcpRoutes } from './mcp.js';
import { orgRoutes } from './org.js';
import { poolsRoutes } from './pools.js';
import { profilesRoutes } from './profiles.js';
import { proxiesRoutes } from './proxies.js';
import { sessionCodeRoutes } from './session-code.js';
import { sessionComputerRoutes } from './session-computer.js';
import { sessionFsRoutes } from './session-fs.js';
import { sessionProcessesRoutes } from './session-processes.js';
import { sessionReplaysRoutes } from './session-replays.js';
import { sessionTelemetryRoutes } from './session-telemetry.js';
import { sessionWebmcpRoutes } from './session-webmcp.js';
import { sessionsRoutes } from './sessions.js';
import { telemetryDestinationsRoutes } from './telemetry-destinations.js';

export const ROUTES = {
  ...appsRoutes,
  ...auditRoutes,
  ...authConnectionsRoutes,
  ...credentialsRoutes,
  ...engineRoutes,
  ...extensionsRoutes,
  ...mcpRoutes,
  ...orgRoutes,
  ...poolsRoutes,
  ...profilesRoutes,
  ...proxiesRoutes,
  ...sessionCodeRoutes,
  ...sessionComputerRoutes,
  ...sessionFsRoutes,
  ...sessionProcessesRoutes,
  ...sessionReplaysRoutes,
  ...sessionTelemetryRoutes,
  ...sessionWebmcpRoutes,
  ...sessionsRoutes,
  ...telemetryDestinationsRoutes,
};

export type RouteTable = typeof ROUTES;
export type RouteName = keyof RouteTable;
export type { RouteFacts, RouteSpec, RouteKey, HttpMethod, Forward, ApiCall, ReachTable } from './route-spec.js';
export { methodsAndUrl } from './route-spec.js';
