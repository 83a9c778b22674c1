/**
 * One login flow in a real browser session on the connection's profile (save_changes): open
 * the login page, discover what it asks for, wait for input (or fill it from a stored
 * credential), type it in, submit, and look again — until the page no longer asks for
 * credentials (SUCCESS: the session is closed so the profile is saved), the flow expires, is
 * canceled, or fails. Every state change goes to `onChange` (persist, events, timeline).
 */
import type { Browser, Page } from 'playwright-core';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { AuthContext } from '../org/auth-context.js';
import type { Clock, Timers } from '../../../shared/clock.js';
import { processTimers } from '../../runtime/process-timers.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import { NavigationGuard } from './allowed-hosts.js';
import { FlowRecording, telemetryCreateFields, type FlowReplays, type RecordingOptions } from './flow-recording.js';
import { newId } from '../ids.js';
import { asksForLogin, snapshot, type PageSnapshot, type RawField } from './page-discovery.js';
import { fieldRef, fieldType, stepView, TERMINAL, type FieldType, type FlowType, type FlowView } from './flow-state.js';
import { AutofillError, valueFor, type AutofillInput, type AutofillSource } from './flow-autofill.js';
import { resolveSubmission, type SubmitInput } from './flow-submission.js';
import { submitStep } from './flow-input.js';

/** What login flows need from the session manager. */
export interface FlowSessions {
  create(auth: AuthContext, body: Record<string, unknown>): Promise<{ session_id: string; browser_live_view_url?: string }>;
  delete(auth: AuthContext, id: string): Promise<void>;
  get(id: string): SessionHandle | undefined;
}

export type { AutofillSource } from './flow-autofill.js';
export type { SubmitInput } from './flow-submission.js';

export interface FlowResult {
  postLoginUrl: string;
  /** Values typed into identifier/password/text fields, by credential ref (never codes). */
  captured: Record<string, string>;
  requirements: FieldType[];
  mfaTypes: string[];
}

export interface FlowDeps {
  type: FlowType;
  auth: AuthContext;
  sessions: FlowSessions;
  clock: Clock;
  ttlMs: number;
  /** What runs `ttlMs` out; default the process's timers. */
  timers?: Timers;
  /** How long the submit (Enter press or click) may take (flow-input.ts). */
  actionTimeoutMs: number;
  loginUrl: string;
  profileName: string;
  proxyId: string | null;
  headless: boolean;
  hostedUrl(flowId: string, code: string): string;
  autofill?: AutofillInput;
  /** Hosts the flow's page may visit (allowed-hosts.ts); undefined = no restriction. */
  allowedHosts?: string[];
  /** record_session and browser_telemetry of this flow (see flow-recording.ts). */
  recording?: RecordingOptions;
  replays: FlowReplays;
  /** The flow's session is up: which replay records it, whether telemetry is captured. */
  onSessionReady?(info: { replayId: string | null; telemetryCaptured: boolean }): void;
  onChange(view: FlowView): void;
  onSuccess(result: FlowResult): Promise<void>;
  log(msg: string, err?: unknown): void;
}

const SETTLE_MS = 15_000;

/** What makes two looks at a page different: where it is, what it asks for, what error it shows. */
const pageSignature = (s: PageSnapshot): string => `${s.url}|${s.fields.map((f) => f.name).join(',')}|${s.error ?? ''}`;

export class LoginFlow {
  readonly view: FlowView;
  private browser?: Browser;
  private page?: Page;
  private loads = 0;
  private last?: PageSnapshot;
  /** Cancels the expiry. */
  private readonly cancelExpiry: () => void;
  private readonly captured: Record<string, string> = {};
  private readonly requirements = new Set<FieldType>();
  private readonly mfaTypes = new Set<string>();
  private readonly autoTried = new Set<string>();
  private busy: Promise<void> = Promise.resolve();
  private readonly recording: FlowRecording;
  private readonly guard: NavigationGuard;
  private loadedAutofill?: AutofillSource;
  /** What the flow is doing right now, said in an EXPIRED flow's error message (where it stopped). */
  private phase = 'starting its browser';
  /** Keeps the flow's browser thawed: the flow drives it straight over CDP, which the idle freezer does not see. */
  private releaseThawed?: () => void;

  constructor(private readonly d: FlowDeps) {
    const id = newId();
    const code = newId(32);
    this.view = {
      id,
      flow_type: d.type,
      flow_status: 'IN_PROGRESS',
      flow_step: 'DISCOVERING',
      flow_expires_at: new Date(d.clock.now().getTime() + d.ttlMs).toISOString(),
      browser_session_id: null,
      hosted_url: d.hostedUrl(id, code),
      handoff_code: code,
      live_view_url: null,
      discovered_fields: null,
      fields: null,
      mfa_options: null,
      pending_sso_buttons: null,
      sign_in_options: null,
      choices: null,
      website_error: null,
      error_code: null,
      error_message: null,
      external_action_message: null,
    };
    this.cancelExpiry = (d.timers ?? processTimers).set(() => void this.finish('EXPIRED', { code: 'flow_expired', message: this.expiredMessage() }), d.ttlMs);
    this.guard = new NavigationGuard(d.allowedHosts);
    this.recording = new FlowRecording(d.recording ?? {}, d.replays, d.log);
  }

  /** True from the moment the flow starts to end (its browser closing), not only once it reports so. */
  private ending: Promise<void> | undefined;
  /** The create of the flow's browser while it runs (closeSession waits for it). */
  private creating?: Promise<{ session_id: string; browser_live_view_url?: string }>;

  get terminal(): boolean {
    return this.ending !== undefined || TERMINAL.includes(this.view.flow_status);
  }

  private expiredMessage(): string {
    const at = this.last ? ` on ${new URL(this.last.url).pathname}` : '';
    return `the login flow expired before it was completed (it was ${this.phase}${at})`;
  }

  private emit(): void {
    this.d.onChange({ ...this.view });
  }

  /** Serializes page work: a submit never overlaps discovery or another submit. */
  private run(work: () => Promise<void>): void {
    this.busy = this.busy.then(async () => {
      if (this.terminal) return;
      try {
        await work();
      } catch (err) {
        if (this.terminal) return;
        this.d.log('login flow failed', err);
        await this.finish('FAILED', { code: 'flow_error', message: (err as Error).message.split('\n')[0].slice(0, 500) });
      }
    });
  }

  /**
   * Starts the flow's browser session (so the caller gets its live view URL and sees limit
   * errors), then discovers the login page in the background.
   */
  async start(): Promise<void> {
    this.emit();
    // Ended already (cancelled while the flow was being set up, or by a listener of the change
    // just emitted): its end did not wait for a create, so a browser asked for now would be left running.
    if (this.terminal) return;
    let s: { session_id: string; browser_live_view_url?: string };
    try {
      s = await (this.creating = this.d.sessions.create(this.d.auth, {
        profile: { name: this.d.profileName, save_changes: true },
        ...(this.d.proxyId ? { proxy_id: this.d.proxyId } : {}),
        ...telemetryCreateFields(this.d.recording ?? {}),
        headless: this.d.headless,
        timeout_seconds: Math.max(60, Math.ceil(this.d.ttlMs / 1000) + 60),
      }));
    } catch (err) {
      await this.finish('FAILED', { code: 'browser_unavailable', message: `the login browser could not be started: ${(err as Error).message}` });
      throw err;
    }
    this.view.browser_session_id = s.session_id;
    this.view.live_view_url = this.d.headless ? null : (s.browser_live_view_url ?? null);
    // Expired or canceled while its browser was starting: closeSession (which waited for this
    // create) ends that browser; nothing more to start.
    if (this.terminal) return;
    const handle = this.d.sessions.get(s.session_id);
    if (handle) {
      // A person may take minutes to type a code: the browser must not be frozen under the page meanwhile.
      this.releaseThawed = handle.holdThawed();
      try {
        this.d.onSessionReady?.(await this.recording.begin(handle));
      } catch (err) {
        const message = `record_session: the flow could not be recorded: ${(err as Error).message}`;
        await this.finish('FAILED', { code: 'replay_unavailable', message });
        throw err instanceof DomainError ? err : DomainError.unprocessable(message, 'replay_unavailable');
      }
    }
    this.emit();
    this.run(async () => {
      if (!handle || !this.d.sessions.get(s.session_id)) throw new Error('the flow browser session ended unexpectedly');
      this.phase = 'connecting to its browser';
      // playwright-core is loaded by the first flow: every engine start would pay for it otherwise.
      const { chromium } = await import('playwright-core');
      this.browser = await chromium.connectOverCDP(handle.browserCdpUrl());
      const context = this.browser.contexts()[0] ?? (await this.browser.newContext());
      this.page = context.pages()[0] ?? (await context.newPage());
      const page = this.page;
      page.on('load', () => {
        this.loads++;
        this.lookAgain();
      });
      page.on('framenavigated', (f) => {
        if (f === page.mainFrame()) this.guard.note(f.url());
      });
      this.phase = 'loading the login page';
      await this.page.goto(this.d.loginUrl, { waitUntil: 'load', timeout: 30_000 });
      this.phase = 'reading the page';
      await this.handle(await snapshot(this.page));
    });
  }

  /** Validates a submission against the current step and applies it in the background. */
  submit(input: SubmitInput): void {
    if (this.view.flow_status !== 'IN_PROGRESS')
      throw DomainError.conflict(`the login flow is ${this.view.flow_status}; start a new one with POST /auth/connections/{id}/login`, 'flow_not_in_progress');
    if (this.view.flow_step !== 'AWAITING_INPUT')
      throw new DomainError(409, 'flow_busy', `the login flow is not waiting for input (step ${this.view.flow_step})`, [], { afterSeconds: 1 });
    const { fills, click } = resolveSubmission(this.last!, input);
    this.view.flow_step = 'SUBMITTING';
    this.view.website_error = null;
    this.emit();
    this.run(() => this.apply(fills, click));
  }

  private async apply(fills: Array<{ field: RawField; value: string }>, click?: string): Promise<void> {
    const page = this.page!;
    const before = this.last!;
    const loadsBefore = this.loads;
    this.phase = 'typing into the page';
    for (const { field, value } of fills) {
      await page.fill(field.selector, value, { timeout: 5_000 });
      const t = fieldType(field);
      if (t === 'identifier' || t === 'password' || t === 'text') this.captured[fieldRef(field)] = value;
    }
    this.phase = 'submitting the page';
    await submitStep(page, click ? { click } : { press: fills[fills.length - 1].field.selector }, this.d.actionTimeoutMs);
    await this.handle(await this.settle(before, loadsBefore));
  }

  /** Waits until the page navigated or visibly changed (new fields, a new error), or gives up. */
  private async settle(before: PageSnapshot, loadsBefore: number): Promise<PageSnapshot> {
    const page = this.page!;
    const deadline = Date.now() + SETTLE_MS;
    this.phase = 'waiting for the page to change after a submit';
    let latest = before;
    while (Date.now() < deadline && !this.terminal) {
      await page.waitForTimeout(200);
      if (this.loads > loadsBefore || page.url() !== before.url) {
        await page.waitForLoadState('load', { timeout: 10_000 }).catch(() => {});
        return snapshot(page);
      }
      latest = await snapshot(page);
      if (pageSignature(latest) !== pageSignature(before)) return latest;
    }
    return latest;
  }

  private async handle(snap: PageSnapshot): Promise<void> {
    this.last = snap;
    if (this.terminal) return;
    const foreign = this.guard.violation(snap.url);
    if (foreign) return this.finish('FAILED', { code: 'domain_not_allowed', message: this.guard.message(foreign) });
    if (!asksForLogin(snap) && snap.choices.every((c) => c.kind !== 'mfa')) return this.succeed(snap);
    for (const f of snap.fields) this.requirements.add(fieldType(f));
    for (const c of snap.choices) if (c.kind === 'mfa') this.mfaTypes.add(c.value);
    for (const f of snap.fields) if (f.type === 'code' && /e-?mail/i.test(`${f.hint ?? ''} ${f.label}`)) this.mfaTypes.add('email');
    Object.assign(this.view, stepView(snap), { flow_step: 'AWAITING_INPUT', website_error: snap.error ?? null });
    this.phase = 'waiting for input';
    this.emit();
    await this.autofill(snap);
  }

  /**
   * The page loaded while the flow waits for input: a submit whose navigation came after the
   * settle window, or a page that moved on by itself (a script, a redirect). Looks again, so the
   * flow follows the page instead of asking for what it no longer shows.
   */
  private lookAgain(): void {
    if (this.view.flow_step !== 'AWAITING_INPUT' || this.terminal) return;
    this.run(async () => {
      const page = this.page;
      if (!page || this.view.flow_step !== 'AWAITING_INPUT' || !this.last) return;
      const now = await snapshot(page).catch(() => undefined); // navigating again: its own load looks
      if (!now || this.view.flow_step !== 'AWAITING_INPUT') return;
      if (pageSignature(now) !== pageSignature(this.last)) await this.handle(now);
    });
  }

  /** With a stored credential, fills and submits a step it can answer completely (once per step). */
  private async autofill(snap: PageSnapshot): Promise<void> {
    if (!this.d.autofill || snap.fields.length === 0) return;
    const key = `${new URL(snap.url).pathname}|${snap.fields.map((f) => f.name).join(',')}`;
    if (this.autoTried.has(key)) return; // the site rejected our values: a person has to look
    let src: AutofillSource;
    try {
      src = await this.autofillSource();
    } catch (err) {
      const code = err instanceof AutofillError ? err.code : 'credential_unavailable';
      return this.finish('FAILED', { code, message: (err as Error).message.split('\n')[0].slice(0, 500) });
    }
    const fills: Array<{ field: RawField; value: string }> = [];
    for (const f of snap.fields) {
      const v = valueFor(f, src, this.d.clock.now());
      if (v === undefined) {
        if (f.required) return;
        continue;
      }
      fills.push({ field: f, value: v });
    }
    if (fills.length === 0) return;
    this.autoTried.add(key);
    this.view.flow_step = 'SUBMITTING';
    this.emit();
    await this.apply(fills);
  }

  /** The values to fill: asked of an external provider once, when a step first needs them. */
  private async autofillSource(): Promise<AutofillSource> {
    const a = this.d.autofill!;
    if (typeof a !== 'function') return a;
    this.loadedAutofill ??= await a();
    return this.loadedAutofill;
  }

  private async succeed(snap: PageSnapshot): Promise<void> {
    this.phase = 'saving the signed-in profile';
    this.view.flow_step = 'SUBMITTING';
    this.view.post_login_url = snap.url;
    Object.assign(this.view, {
      discovered_fields: null,
      fields: null,
      mfa_options: null,
      pending_sso_buttons: null,
      sign_in_options: null,
      choices: null,
      website_error: null,
    });
    // The profile is written when the session ends: close it before reporting success, so a
    // session started right after sees the login.
    await this.closeSession();
    await this.d.onSuccess({ postLoginUrl: snap.url, captured: this.captured, requirements: [...this.requirements], mfaTypes: [...this.mfaTypes] });
    await this.finish('SUCCESS');
  }

  /**
   * Ends the flow: its browser is closed first and the final status reported after, so whoever
   * sees SUCCESS/FAILED/EXPIRED/CANCELED can rely on the browser being gone (and a profile saved).
   */
  finish(status: 'SUCCESS' | 'FAILED' | 'EXPIRED' | 'CANCELED', error?: { code: string; message: string }): Promise<void> {
    if (this.terminal) return this.ending ?? Promise.resolve();
    this.cancelExpiry();
    this.ending = (async () => {
      try {
        await this.closeSession();
      } finally {
        this.view.flow_status = status;
        if (status === 'SUCCESS') this.view.flow_step = 'COMPLETED';
        if (error) {
          this.view.error_code = error.code;
          this.view.error_message = error.message;
        }
        this.emit();
      }
    })();
    return this.ending;
  }

  /** Cancels (delete of the connection, a new login superseding this one) and waits for the browser to go. */
  async cancel(message = 'the login flow was canceled'): Promise<void> {
    await this.finish('CANCELED', { code: 'flow_canceled', message });
    await this.busy;
    await this.closeSession();
  }

  private async closeSession(): Promise<void> {
    // A flow that ends while its browser is still being created must not leave that browser behind.
    const created = await this.creating?.catch(() => undefined);
    await this.recording.end();
    this.releaseThawed?.();
    this.releaseThawed = undefined;
    const b = this.browser;
    this.browser = undefined;
    this.page = undefined;
    await b?.close().catch(() => {});
    const id = this.view.browser_session_id ?? created?.session_id;
    if (id && this.d.sessions.get(id)) await this.d.sessions.delete(this.d.auth, id).catch((err) => this.d.log('ending the flow session failed', err));
  }
}
