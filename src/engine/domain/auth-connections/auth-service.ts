/**
 * Managed login: runs login flows for auth connections, keeps their state visible (record,
 * `managed_auth_state` events, timeline), saves what a successful login produced (profile,
 * optionally the credential), and answers `can_reauth` from what the last login required.
 * Health checks live in health-checks.ts and call `startFlow(..., 'REAUTH')` when allowed.
 */
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Clock, Timers } from '../../../shared/clock.js';
import type { Credentials } from '../credentials/credentials.js';
import { isProviderRef, providerLabel, type ProviderService } from '../credential-providers/provider-service.js';
import { ProviderError } from '../credential-providers/provider-adapter.js';
import { AutofillError, type AutofillInput } from './flow-autofill.js';
import type { AuthConnections, ConnectionRow, CredentialRef } from './auth-connections.js';
import type { AuthTimeline } from './auth-timeline.js';
import { LoginFlow, type FlowResult, type FlowSessions, type SubmitInput } from './login-flow.js';
import type { FlowReplays } from './flow-recording.js';
import { allowedHosts } from './allowed-hosts.js';
import { TERMINAL, type FieldType, type FlowType, type FlowView } from './flow-state.js';

export interface ProfileAccess {
  ensure(scope: { orgId: string; projectId: string }, name: string): Promise<string>;
}

export interface AuthServiceDeps {
  connections: AuthConnections;
  timeline: AuthTimeline;
  credentials: Credentials;
  /** External credential providers (1Password), for `credential: {provider, path|auto}`. */
  providers: ProviderService;
  sessions: () => FlowSessions;
  profiles: () => ProfileAccess;
  /** The engine's replays service, for record_session. */
  replays: FlowReplays;
  clock: Clock;
  flowTtlMs: number;
  /** What runs flows' TTL out (config.identity.flowTimers; default the process's timers). */
  flowTimers?: Timers;
  /** How long a flow's submit may take (config.identity.flowActionTimeoutMs). */
  flowActionTimeoutMs: number;
  publicUrl(): string;
  log(msg: string, err?: unknown): void;
}

interface Requirements {
  types: FieldType[];
  mfa: string[];
}

type Listener = (view: FlowView) => void;

export function actingAs(row: ConnectionRow): AuthContext {
  return {
    orgId: row.org_id,
    projectId: row.project_id,
    credentialProjectId: row.project_id,
    strategy: 'api_key',
    userId: `auth_connection:${row.id}`,
    email: '',
  };
}

export class AuthService {
  private readonly flows = new Map<string, LoginFlow>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly d: AuthServiceDeps) {}

  flowOf(connectionId: string): LoginFlow | undefined {
    return this.flows.get(connectionId);
  }

  /** The current flow view: the live one, else the last persisted one. */
  flowView(row: ConnectionRow): FlowView | undefined {
    return this.flows.get(row.id)?.view ?? (row.flow ? (JSON.parse(row.flow) as FlowView) : undefined);
  }

  subscribe(connectionId: string, fn: Listener): () => void {
    let set = this.listeners.get(connectionId);
    if (!set) this.listeners.set(connectionId, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  private async autofillFor(row: ConnectionRow): Promise<AutofillInput | undefined> {
    const ref = row.credential ? (JSON.parse(row.credential) as CredentialRef) : undefined;
    if (ref && isProviderRef(ref)) return () => this.providerValues(row, ref);
    if (!ref?.name) return undefined;
    const cred = await this.d.credentials.find(row.project_id, ref.name);
    if (!cred) return undefined;
    return { values: this.d.credentials.valuesOf(cred), totpSecret: this.d.credentials.totpSecretOf(cred) };
  }

  /** Asked when a login step first needs values; any provider failure becomes the flow's error. */
  private async providerValues(row: ConnectionRow, ref: CredentialRef): Promise<{ values: Record<string, string>; totpSecret?: string; totpCode?: string }> {
    try {
      return await this.d.providers.valuesFor(row.org_id, ref, row.domain);
    } catch (err) {
      const kind = err instanceof ProviderError ? err.kind : 'failed';
      const code = {
        unreachable: 'credential_provider_unavailable',
        timeout: 'credential_provider_unavailable',
        not_found: 'credential_not_found',
        disabled: 'credential_provider_disabled',
        rejected: 'credential_provider_error',
        failed: 'credential_provider_error',
      }[kind];
      throw new AutofillError(code, `${providerLabel(ref)}: ${(err as Error).message}`);
    }
  }

  /** `recordSession` / `telemetry` override the connection's record_session / browser_telemetry for this flow. */
  async startFlow(
    row: ConnectionRow,
    type: FlowType,
    opts: { proxyId?: string | null; headless?: boolean; recordSession?: boolean; telemetry?: Record<string, unknown> | null } = {},
  ): Promise<LoginFlow> {
    const previous = this.flows.get(row.id);
    if (previous && !previous.terminal) await previous.cancel('superseded by a new login flow');
    await this.d.profiles().ensure({ orgId: row.org_id, projectId: row.project_id }, row.profile_name);
    const connectionId = row.id;
    const loginUrl = row.login_url ?? `https://${row.domain}/`;
    const base = this.d.publicUrl();
    const flow: LoginFlow = new LoginFlow({
      type,
      auth: actingAs(row),
      sessions: this.d.sessions(),
      clock: this.d.clock,
      ttlMs: this.d.flowTtlMs,
      timers: this.d.flowTimers,
      actionTimeoutMs: this.d.flowActionTimeoutMs,
      loginUrl,
      profileName: row.profile_name,
      proxyId: opts.proxyId !== undefined ? opts.proxyId : row.proxy_id,
      headless: opts.headless ?? type === 'REAUTH',
      hostedUrl: (flowId, code) => `${base}/auth/connections/${connectionId}/hosted?code=${code}`,
      autofill: await this.autofillFor(row),
      allowedHosts: allowedHosts(row.domain, JSON.parse(row.allowed_domains) as string[], loginUrl),
      recording: {
        recordSession: opts.recordSession ?? row.record_session === 1,
        telemetry:
          opts.telemetry !== undefined ? opts.telemetry : row.browser_telemetry ? (JSON.parse(row.browser_telemetry) as Record<string, unknown>) : undefined,
      },
      replays: this.d.replays,
      onSessionReady: (info) => this.recorded(connectionId, flow.view.id, info),
      onChange: (view) => this.changed(connectionId, view),
      onSuccess: (result) => this.succeeded(connectionId, result),
      log: this.d.log,
    });
    this.flows.set(row.id, flow);
    await this.d.timeline.add({ id: flow.view.id, connectionId, type: type === 'LOGIN' ? 'login' : 'reauth', status: 'IN_PROGRESS', step: 'INITIALIZED' });
    await flow.start();
    return flow;
  }

  /** Persists, publishes and records each state change, in order per connection. */
  private changed(connectionId: string, view: FlowView): void {
    for (const fn of this.listeners.get(connectionId) ?? []) fn(view);
    const prev = this.writes.get(connectionId) ?? Promise.resolve();
    const next = prev.then(async () => {
      try {
        await this.d.connections.saveFlow(connectionId, view);
        await this.d.timeline.update(view.id, {
          status: view.flow_status,
          step: view.flow_status === 'EXPIRED' ? 'EXPIRED' : view.flow_step,
          browser_session_id: view.browser_session_id,
          error_code: view.error_code,
          error_message: view.error_message,
          website_error: view.website_error,
        });
      } catch (err) {
        this.d.log('saving auth flow state failed', err);
      }
    });
    this.writes.set(connectionId, next);
  }

  /** Notes on the flow's timeline entry which replay records it and whether telemetry is captured. */
  private recorded(connectionId: string, flowId: string, info: { replayId: string | null; telemetryCaptured: boolean }): void {
    const prev = this.writes.get(connectionId) ?? Promise.resolve();
    const next = prev.then(() =>
      this.d.timeline
        .update(flowId, { replay_id: info.replayId, telemetry_captured: info.telemetryCaptured ? 1 : 0 })
        .catch((err) => this.d.log('saving the flow recording failed', err)),
    );
    this.writes.set(connectionId, next);
  }

  /** Waits until every state change so far is stored (for GET right after an event). */
  async flushed(connectionId: string): Promise<void> {
    await this.writes.get(connectionId);
  }

  private async succeeded(connectionId: string, r: FlowResult): Promise<void> {
    const row = await this.d.connections.byId(connectionId);
    if (!row) return;
    const now = this.d.clock.now();
    const change: Partial<ConnectionRow> = {
      status: 'AUTHENTICATED',
      last_login_at: now.toISOString(),
      post_login_url: r.postLoginUrl,
      requirements: JSON.stringify({ types: r.requirements, mfa: r.mfaTypes } satisfies Requirements),
      next_check_at: new Date(now.getTime() + row.health_check_interval * 1000).toISOString(),
    };
    if (row.save_credentials && Object.keys(r.captured).length > 0) {
      const ref = row.credential ? (JSON.parse(row.credential) as CredentialRef) : undefined;
      if (!isProviderRef(ref)) {
        const name = ref?.name ?? `${row.profile_name}-${row.domain}`.replace(/[^A-Za-z0-9._-]/g, '-');
        await this.d.credentials.saveCaptured(row.org_id, row.project_id, name, row.domain, r.captured);
        if (!ref) change.credential = JSON.stringify({ name });
      }
    }
    await this.d.connections.update(connectionId, change);
  }

  submit(row: ConnectionRow, input: SubmitInput): void {
    const flow = this.flows.get(row.id);
    if (!flow) throw DomainError.conflict('no login flow is in progress; start one with POST /auth/connections/{id}/login', 'flow_not_in_progress');
    flow.submit(input);
  }

  /** Ends any flow of a connection (deletion): its browser session is gone when this returns. */
  async stop(connectionId: string, message: string): Promise<void> {
    const flow = this.flows.get(connectionId);
    if (flow) await flow.cancel(message);
    await this.flushed(connectionId);
    this.flows.delete(connectionId);
    for (const fn of this.listeners.get(connectionId) ?? []) if (flow) fn(flow.view);
    this.listeners.delete(connectionId);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.flows.keys()].map((id) => this.stop(id, 'the engine is stopping')));
  }

  async canReauth(row: ConnectionRow): Promise<{ can: boolean; reason: string }> {
    if (!row.last_login_at) return { can: false, reason: 'no_prior_successful_login' };
    const ref = row.credential ? (JSON.parse(row.credential) as CredentialRef) : undefined;
    const req = row.requirements ? (JSON.parse(row.requirements) as Requirements) : undefined;
    // A code sent by e-mail or SMS needs a person, whatever the credential.
    const needsCode = req?.types.includes('code')
      ? { can: false, reason: req.mfa.includes('email') && !req.mfa.includes('sms') ? 'requires_email_code' : 'requires_sms_code' }
      : undefined;
    if (ref && isProviderRef(ref)) {
      if (needsCode) return needsCode;
      return (await this.d.providers.usable(row.org_id, ref)) ? { can: true, reason: 'external_credential' } : { can: false, reason: 'no_credential' };
    }
    if (!ref?.name) return { can: false, reason: 'no_credential' };
    const cred = await this.d.credentials.find(row.project_id, ref.name);
    if (!cred) return { can: false, reason: 'no_credential' };
    if (!req) return { can: true, reason: 'has_credential' };
    if (needsCode) return needsCode;
    if (req.types.includes('totp_code') && !cred.totp_secret_enc) return { can: false, reason: 'requires_totp_without_secret' };
    const keys = new Set(JSON.parse(cred.value_keys) as string[]);
    if (req.types.includes('password') && !keys.has('password')) return { can: false, reason: 'no_credential' };
    if (req.types.includes('identifier') && !['username', 'email', 'identifier', 'login'].some((k) => keys.has(k)))
      return { can: false, reason: 'no_credential' };
    return { can: true, reason: 'requirements_satisfiable' };
  }

  isRunning(connectionId: string): boolean {
    const f = this.flows.get(connectionId);
    return !!f && !TERMINAL.includes(f.view.flow_status);
  }
}
