/**
 * `PATCH /browsers/{id}`: name, tags, telemetry and viewport change on a running session;
 * a profile cannot be loaded into a running browser (422), and the proxy changes through the
 * proxies' live switch (`ProxyHooks.switchProxy`); of `network` only `allowed_hosts` changes
 * (the jail's egress takes the new list at once; session-network.ts has the rules), the rest is
 * create-only (400). Telemetry and viewport changes reach features through the runtime's `onUpdate`.
 */
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionManager } from './session-manager.js';
import { parseOptions, type SessionRow } from './session-record.js';
import type { RunningSession } from '../../runtime/session/running-session.js';
import { normalizeTelemetry, validateName, validateStartUrl, validateTags, validateViewport, type TelemetryConfig, type Viewport } from './session-options.js';
import type { ProxyHooks } from './session-hooks.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { SessionUpdate } from '../../../shared/wire/sessions.js';
import { applyLocation, mergeLocation } from './session-location.js';
import { proxyChoice } from './session-proxy-choice.js';
import { SessionCdpSlot } from '../../runtime/cdp/session-cdp.js';
import { allowedHostsNeedJail, checkNetworkUpdate, type NetworkConfig } from './session-network.js';

/** The update's body as the wire schema validated it (`SessionUpdateSchema`). */
export type UpdateBody = SessionUpdate;

export async function updateSession(
  db: Kysely<Database>,
  m: SessionManager,
  auth: AuthContext,
  idOrName: string,
  body: UpdateBody,
  proxies: Pick<ProxyHooks, 'switchProxy'>,
): Promise<SessionRow> {
  // Everything is checked before anything changes (an unknown time zone changes nothing).
  const choice = body.proxy !== undefined ? proxyChoice(body.proxy, body.proxy_id, body.disable_default_proxy) : undefined;
  const startUrl = body.start_url ? validateStartUrl(body.start_url) : undefined;
  const row = await m.getRow(auth, idOrName);
  const rt = m.get(row.id);
  if (!rt) throw new DomainError(404, 'session_ended', `browser session '${idOrName}' has ended`);
  const options = parseOptions(row);
  const network = checkNetworkUpdate(body.network, !!options.allowed_hosts_removed);
  if (network) {
    if (row.pool_id)
      throw DomainError.conflict(
        `browser session '${idOrName}' belongs to pool '${row.pool_id}': a pooled browser takes no egress allowlist`,
        'pooled_browser',
      );
    if (network.allowed_hosts && !rt.jailed) throw allowedHostsNeedJail();
  }
  const location = body.location !== undefined ? mergeLocation(options.location, body.location) : options.location;
  const changes: Partial<SessionRow> = {};
  if (body.name !== undefined) {
    const name = body.name ? validateName(body.name) : null;
    if (name && name !== row.name) {
      const taken = await db
        .selectFrom('browser_sessions')
        .select('id')
        .where('org_id', '=', row.org_id)
        .where('project_id', '=', row.project_id)
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .where('id', '!=', row.id)
        .executeTakeFirst();
      if (taken) throw DomainError.conflict(`a session named '${name}' is already active in this project`, 'session_name_taken');
    }
    changes.name = name;
  }
  if (body.tags !== undefined) changes.tags = JSON.stringify(validateTags(body.tags));
  if (body.profile && (body.profile.id || body.profile.name)) {
    throw DomainError.unprocessable(
      'loading a profile into a running session is not supported; create the session with the profile',
      'profile_change_unsupported',
    );
  }
  // Typed `proxy` (0.88): a mode means no selected proxy; an id or name selects one.
  const target = choice ? (choice.selector ?? null) : body.proxy_id !== undefined ? body.proxy_id || null : undefined;
  const wantsProxy = target !== undefined && (typeof target !== 'string' || target !== row.proxy_id) && !(target === null && !row.proxy_id);
  if (wantsProxy) {
    // The proxy feature switches the session's local forwarder live (no browser restart).
    changes.proxy_id = (await proxies.switchProxy(auth, row.id, target))?.id ?? null;
  }
  const nextOptions = { ...options };
  if (choice?.mode) nextOptions.proxy_mode = choice.mode;
  else if (choice) delete nextOptions.proxy_mode;
  if (body.location !== undefined) {
    if (location) nextOptions.location = location;
    else delete nextOptions.location;
  }
  if (network) {
    const { allowed_hosts: _old, ...rest }: NetworkConfig = nextOptions.network ?? {};
    const next = network.allowed_hosts ? { ...rest, allowed_hosts: network.allowed_hosts } : rest;
    if (Object.keys(next).length) nextOptions.network = next;
    else delete nextOptions.network;
    if (!network.allowed_hosts) nextOptions.allowed_hosts_removed = true;
  }
  // The Session object's start_url is the one most recently asked for (0.106), loaded or not.
  if (startUrl) nextOptions.start_url = startUrl;
  if (JSON.stringify(nextOptions) !== row.options) changes.options = JSON.stringify(nextOptions);
  // disable_default_proxy: this engine has no default proxy, so there is nothing to disable.
  let telemetry: TelemetryConfig | undefined;
  if (body.telemetry !== undefined) {
    const current = row.telemetry ? (JSON.parse(row.telemetry) as TelemetryConfig) : null;
    telemetry = normalizeTelemetry(body.telemetry, current);
    changes.telemetry = JSON.stringify(telemetry);
  }
  let viewport: Viewport | undefined;
  if (body.viewport) {
    const { force: _force, ...v } = body.viewport;
    viewport = validateViewport(v);
    await resizeBrowser(rt, viewport);
  }
  // The new list holds on the browser's way out before the update answers (no restart).
  if (network && rt.jailed) rt.setAllowedHosts(network.allowed_hosts);
  if (Object.keys(changes).length) await db.updateTable('browser_sessions').set(changes).where('id', '=', row.id).execute();
  if (Object.keys(changes).length || viewport) m.changes.upsert(row.org_id, 'session', row.id, row.project_id);
  if (telemetry) rt.telemetry = telemetry;
  if (viewport) rt.viewport = viewport;
  if (telemetry || viewport) await rt.notifyUpdate();
  // Applied without restarting Chromium; a proxy change keeps the overrides (they are the browser's).
  if (body.location !== undefined) await applyLocation(rt, location);
  if (startUrl) await navigateBestEffort(rt, startUrl);
  return { ...row, ...changes };
}

/** PATCH `start_url`: the active tab goes there; a failed navigation does not fail the update (Kernel). */
async function navigateBestEffort(rt: RunningSession, url: string): Promise<void> {
  try {
    const cdp = rt.scope.get(SessionCdpSlot);
    const page = await cdp.activePage();
    await cdp.send('Page.navigate', { url }, page.sessionId);
  } catch {
    // best effort
  }
}

/** Applies the viewport to the browser; a headful session's windows cannot outgrow its X screen. */
async function resizeBrowser(rt: RunningSession, v: Viewport): Promise<void> {
  if (rt.display && (v.width > rt.screen.width || v.height > rt.screen.height)) {
    throw DomainError.unprocessable(
      `a headful session's viewport cannot grow beyond its screen (${rt.screen.width}x${rt.screen.height})`,
      'viewport_too_large',
    );
  }
  await rt.resizeViewport(v);
}
