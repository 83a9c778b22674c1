/**
 * The owner of everything one session holds (issue 26). A scope is made when a create starts;
 * every resource the create takes (proxy forwarder, profile binding, claimed standby browser,
 * directories, cgroups, jail, display, browser) is handed to it with `own`, in acquisition order,
 * and every per-session service (the shared CDP client, the screencast, executors, …) lives in a
 * typed slot reached with `scope.get(Slot)`, made on first use and owned like the rest.
 *
 * Closing the scope *is* ending the session: exactly once, in reverse order (services made last
 * go first, the directories made first go last), each step bounded with its timer cleared, a
 * failing or hanging step logged and skipped so the rest still runs. Whatever is handed to a
 * scope that has already closed is closed at once — a create racing a delete leaks nothing.
 *
 * Like Playwright's `Progress` and steel-browser's launch scope, the create's deadline lives
 * here too: `fence()` throws once it has passed or the scope is closing, so a slow step cannot
 * go on to acquire something nobody will release.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionHandle } from './session-handle.js';

/** A per-session service: made from the scope on first `get`, closed with it. */
export interface Slot<T> {
  readonly name: string;
  create(scope: SessionScope): T;
  close?(value: T): void | Promise<void>;
}

/** Declares a slot; define it once, beside the service, as a module constant. */
export function defineSlot<T>(name: string, create: (scope: SessionScope) => T, close?: (value: T) => void | Promise<void>): Slot<T> {
  return { name, create, close };
}

export interface SessionScopeOptions {
  /** The session id (for messages and logs). */
  id: string;
  /** The create's deadline: `fence()` throws once it is aborted. Dropped by `createDone()`. */
  deadline?: AbortSignal;
  /** Bound of one close step, in ms (default 10 s); a step still running is logged and left behind. */
  stepTimeoutMs?: number;
  /** Where failing and hanging close steps are reported. */
  log?: (message: string) => void;
}

interface Step {
  name: string;
  run: () => void | Promise<void>;
  timeoutMs?: number;
}

/**
 * A step's own bound (default: the scope's). `Infinity` for a step that must finish before the
 * next may start and bounds its own waits (stopping the browser, saving its profile back,
 * removing the session's directories): going on without it would act under it.
 */
export interface StepOptions {
  timeoutMs?: number;
}

const DEFAULT_STEP_MS = 10_000;

export class SessionScope {
  readonly id: string;
  private readonly steps: Step[] = [];
  private readonly slots = new Map<Slot<unknown>, unknown>();
  private readonly abort = new AbortController();
  private readonly stepTimeoutMs: number;
  private readonly log: (message: string) => void;
  private deadline?: AbortSignal;
  /** `deadline` and the scope's end combined, made once (each AbortSignal.any listens on both). */
  private deadlineOrEnd?: AbortSignal;
  private closing?: Promise<void>;
  private attached?: SessionHandle;

  constructor(opts: SessionScopeOptions) {
    this.id = opts.id;
    this.deadline = opts.deadline;
    this.stepTimeoutMs = opts.stepTimeoutMs ?? DEFAULT_STEP_MS;
    this.log = opts.log ?? (() => {});
  }

  /** Aborted when the scope starts closing (with the reason given to `close`). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  /** The create's deadline and the scope's end in one signal, for the create's steps to pass on. */
  get createSignal(): AbortSignal {
    if (!this.deadline) return this.abort.signal;
    return (this.deadlineOrEnd ??= AbortSignal.any([this.deadline, this.abort.signal]));
  }

  /** The create finished: later steps (a browser restart) run under their own bounds. */
  createDone(): void {
    this.deadline = undefined;
    this.deadlineOrEnd = undefined;
  }

  /** "A deadline is also a fence": throws once the create's deadline passed or the scope closes. */
  fence(): void {
    if (this.closed) throw this.endedError();
    if (this.deadline?.aborted) {
      const reason: unknown = this.deadline.reason;
      throw reason instanceof Error ? reason : new Error(`session ${this.id}: the create ran out of time`);
    }
  }

  /** The session the slots serve; set once its handle exists (slots are made after that). */
  attach(handle: SessionHandle): void {
    this.attached = handle;
  }

  get handle(): SessionHandle {
    if (!this.attached) throw new Error(`session ${this.id}: a slot was used before the session had a handle`);
    return this.attached;
  }

  /**
   * Hands `resource` to the scope: `close` runs when the scope closes, in reverse order of
   * everything owned. On a scope already closed it runs at once (bounded, logged).
   */
  own<T>(resource: T, close: (resource: T) => void | Promise<void>, name = 'resource', opts: StepOptions = {}): T {
    this.defer(name, () => close(resource), opts);
    return resource;
  }

  /** Runs `fn` when the scope closes (reverse order), or at once when it already has. */
  defer(name: string, fn: () => void | Promise<void>, opts: StepOptions = {}): void {
    const step: Step = { name, run: fn, timeoutMs: opts.timeoutMs };
    if (this.closed) void this.runStep(step);
    else this.steps.push(step);
  }

  /** The session's `slot` service, made (and owned) on first use. Throws 404 once the session ended. */
  get<T>(slot: Slot<T>): T {
    if (this.slots.has(slot)) return this.slots.get(slot) as T;
    if (this.closed) throw this.endedError();
    const value = slot.create(this);
    this.slots.set(slot, value);
    const close = slot.close;
    if (close) this.defer(slot.name, () => close(value));
    return value;
  }

  /** The slot's service if it was made (and the scope is open); never makes one. */
  peek<T>(slot: Slot<T>): T | undefined {
    return this.closed ? undefined : (this.slots.get(slot) as T | undefined);
  }

  /** Closes everything owned, once, newest first. Later calls get the same promise. */
  close(reason = 'closed'): Promise<void> {
    this.closing ??= (async () => {
      this.abort.abort(new Error(`session ${this.id} ended: ${reason}`));
      while (this.steps.length > 0) await this.runStep(this.steps.pop() as Step);
      // Closed services are let go (a handle kept somewhere must not keep them alive); a later
      // `get` answers 404 session_ended instead of handing out a closed one.
      this.slots.clear();
    })();
    return this.closing;
  }

  private async runStep(step: Step): Promise<void> {
    const ms = step.timeoutMs ?? this.stepTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      if (!Number.isFinite(ms)) return;
      timer = setTimeout(() => resolve('timeout'), ms);
      timer.unref();
    });
    try {
      const result = await Promise.race([Promise.resolve().then(step.run), timedOut]);
      if (result === 'timeout') this.log(`session ${this.id}: closing ${step.name} took over ${ms} ms; going on without it`);
    } catch (err) {
      this.log(`session ${this.id}: closing ${step.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private endedError(): DomainError {
    return new DomainError(404, 'session_ended', `browser session '${this.id}' has ended`);
  }
}
