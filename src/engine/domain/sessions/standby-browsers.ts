/**
 * Standby browsers: launched, jailed, idle browsers per shape (standby-shape.ts) that a
 * `POST /browsers` claims instead of launching (session-manager.ts). Each is a RunningSession
 * made with the id, directories and jail its session will have; it has no database row until a
 * create claims it, so it counts against no org or project limit and no one has seen it. A
 * claimed browser leaves the standby for good, and its refill starts at the claim. Launches run
 * in parallel: `budget.launches` at once (one per core) to start with, one more after a launch
 * ends while creates waited for launches and the CPUs had idle time, one fewer while they are
 * saturated, up to `budget.maxLaunches` (standby-depth.ts's nextLaunchLimit).
 * A create that finds no ready browser of its shape adopts a launch of that shape already under
 * way (the oldest not yet promised to another create) instead of starting one of its own.
 *
 * Sizing (standby-depth.ts): every create that fits a shape counts as demand for it; a shape wants
 * as many ready browsers as the most creates that came within one launch time of each other in the
 * last ten minutes (the default headless shape at least one, any shape asked for in that time at
 * least one), most demanded first, within the operator's budget of browsers (`--standby N`) and
 * memory (`--standby-memory MB`, at an estimated cost per browser). Surplus idle browsers end.
 * Ready browsers freeze when idle like any session (their jail's cgroup), so they cost no CPU.
 */
import type { RunningSession } from '../../runtime/session/running-session.js';
import { DEFAULT_SHAPE, shapeKey, type StandbyShape } from './standby-shape.js';
import type { StandbyStatus } from '../../../shared/wire/health.js';
import { burstDepth, FIRST_LAUNCH_MS, nextLaunchEstimate, nextLaunchLimit, STANDBY_EST_MB } from './standby-depth.js';

const KEEP_WINDOW_MS = 600_000;
const RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;

export interface StandbyBudget {
  /** Standby browsers (ready and launching for the standby) at most. */
  count: number;
  memoryMb: number;
  /** Standby launches running at once to start with, and never fewer. */
  launches: number;
  /** Standby launches at once at most, while creates wait and the CPUs have idle time (default: `launches`, a fixed limit). */
  maxLaunches?: number;
}

/** What the standby needs of a browser it keeps (a `RunningSession`; unit tests pass plain objects). */
export type StandbyBrowser = Pick<RunningSession, 'id' | 'ended' | 'frozen'>;

export interface StandbyLauncher<R extends StandbyBrowser = RunningSession> {
  /** Launches one standby browser of this shape; resolves once it is ready. */
  launch(shape: StandbyShape): Promise<R>;
  /** Ends a standby browser that will never be claimed. */
  discard(rt: R, reason: string): Promise<void>;
  onError(err: unknown): void;
}

/** One standby launch under way; `taken` once a create has adopted it (it then never becomes ready). */
interface Launch<R> {
  taken: boolean;
  /** Resolves with the browser for the create that adopted it; undefined when it failed or nobody did. */
  done: Promise<R | undefined>;
}

interface ShapeState<R> {
  shape: StandbyShape;
  ready: R[];
  launching: Launch<R>[];
  demand: number[];
}

/**
 * What `take` hands a create: a ready browser, or a launch under way that the create waits for
 * (undefined if it fails: the create launches cold). `from` is what `giveBack` is told.
 */
export type StandbyClaim<R> = { from: 'ready'; ready: R } | { from: 'launch'; launching: Promise<R | undefined> };

export type { StandbyStatus };

export class StandbyBrowsers<R extends StandbyBrowser = RunningSession> {
  private readonly shapes = new Map<string, ShapeState<R>>();
  private stopped = false;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private claimed = 0;
  private adopted = 0;
  private cold = 0;
  /** How long a standby launch takes, as measured (the window depth is counted in). */
  private launchMs = FIRST_LAUNCH_MS;
  /** Launches at once now (between budget.launches and maxLaunches). */
  private launchLimit: number;
  /** Creates since the last launch ended that found no ready browser (adopted a launch or went cold). */
  private waited = 0;
  /** Browsers being ended (surplus, recycled): the engine's stop waits for them. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly budget: StandbyBudget,
    private readonly launcher: StandbyLauncher<R>,
    private readonly now: () => number = Date.now,
    /** The CPUs' idle share (0–1) since the previous call (runtime/cpu-idle.ts); undefined: not known, the limit stays. */
    private readonly cpuIdle: () => number | undefined = () => undefined,
  ) {
    this.launchLimit = budget.launches;
    this.state(DEFAULT_SHAPE);
  }

  private discard(rt: R, reason: string): Promise<void> {
    const p = this.launcher.discard(rt, reason).catch(() => {});
    this.ending.add(p);
    void p.finally(() => this.ending.delete(p));
    return p;
  }

  get enabled(): boolean {
    return this.budget.count > 0 && this.budget.memoryMb > 0 && this.budget.launches > 0;
  }

  private state(shape: StandbyShape): ShapeState<R> {
    const key = shapeKey(shape);
    let s = this.shapes.get(key);
    if (!s) this.shapes.set(key, (s = { shape, ready: [], launching: [], demand: [] }));
    return s;
  }

  /** The ids of the ready browsers, of one shape (its key) or all (engine-internal: tests prove a create took one of them). */
  readyIds(key?: string): string[] {
    return [...this.shapes].filter(([k]) => !key || k === key).flatMap(([, s]) => s.ready.map((rt) => rt.id));
  }

  /** A ready browser by id (engine-internal). */
  runtime(id: string): R | undefined {
    for (const s of this.shapes.values()) for (const rt of s.ready) if (rt.id === id) return rt;
    return undefined;
  }

  /**
   * A ready browser of this shape, now taken out of the standby for good; else a launch of this
   * shape under way that no other create has adopted; else undefined (the create launches cold).
   * Counts as demand either way and starts the refill now.
   */
  take(shape: StandbyShape): StandbyClaim<R> | undefined {
    if (!this.enabled || this.stopped) return undefined;
    const s = this.state(shape);
    s.demand.push(this.now());
    let rt: R | undefined;
    while ((rt = s.ready.shift()) && rt.ended);
    let claim: StandbyClaim<R> | undefined;
    if (rt) {
      this.claimed++;
      claim = { from: 'ready', ready: rt };
    } else {
      // The oldest launch is the nearest to ready.
      const launch = s.launching.find((l) => !l.taken);
      if (launch) {
        launch.taken = true;
        this.adopted++;
        claim = { from: 'launch', launching: launch.done };
      } else this.cold++;
      this.waited++;
    }
    this.fill();
    return claim;
  }

  /** A taken browser that was never adopted (the create failed before): ready again. */
  giveBack(shape: StandbyShape, rt: R, from: StandbyClaim<R>['from'] = 'ready'): void {
    if (from === 'ready') this.claimed--;
    else this.adopted--;
    if (this.stopped || rt.ended) return void this.discard(rt, 'standby_stopped');
    this.state(shape).ready.unshift(rt);
  }

  /** A ready browser ended on its own (crashed for good, recycled): forget it, end it, refill. */
  lost(rt: R, reason: string): void {
    for (const s of this.shapes.values()) {
      const i = s.ready.indexOf(rt);
      if (i >= 0) s.ready.splice(i, 1);
    }
    void this.discard(rt, reason);
    this.fill();
  }

  /**
   * How many ready browsers each shape should have now, within the budget: one at a time to
   * each shape that still wants more, most demanded first, so every shape in use gets one
   * before any gets a second.
   */
  targets(): Map<string, number> {
    const now = this.now();
    let count = this.budget.count;
    let memory = this.budget.memoryMb;
    const entries = [...this.shapes.entries()].map(([key, s]) => {
      s.demand = s.demand.filter((t) => now - t < KEEP_WINDOW_MS);
      const floor = key === shapeKey(DEFAULT_SHAPE) || s.demand.length > 0 ? 1 : 0;
      const want = Math.max(floor, burstDepth(s.demand, this.launchMs));
      return { key, cost: s.shape.headless ? STANDBY_EST_MB.headless : STANDBY_EST_MB.headful, want, n: 0 };
    });
    entries.sort((a, b) => b.want - a.want || (a.key === shapeKey(DEFAULT_SHAPE) ? -1 : 1));
    for (let more = true; more;) {
      more = false;
      for (const e of entries) {
        if (e.n >= e.want || count < 1 || memory < e.cost) continue;
        e.n++;
        count--;
        memory -= e.cost;
        more = true;
      }
    }
    return new Map(entries.map((e) => [e.key, e.n]));
  }

  /** Launches under way (adopted ones too: they take the cores all the same). */
  private get inFlight(): number {
    let n = 0;
    for (const s of this.shapes.values()) n += s.launching.length;
    return n;
  }

  /** Ends surplus browsers and starts the launches the targets call for, up to the launch limit at once. */
  fill(): void {
    if (this.stopped || !this.enabled || this.timer) return;
    const targets = this.targets();
    const coming = (s: ShapeState<R>) => s.ready.length + s.launching.filter((l) => !l.taken).length;
    for (const [key, s] of this.shapes) {
      const surplus = coming(s) - (targets.get(key) ?? 0);
      for (const rt of s.ready.splice(0, Math.max(0, Math.min(surplus, s.ready.length)))) void this.discard(rt, 'standby_surplus');
    }
    // Round-robin over the shapes that want more, so one shape's depth does not starve another's first browser.
    for (let more = true; more && this.inFlight < this.launchLimit;) {
      more = false;
      for (const [key, s] of this.shapes) {
        if (this.inFlight >= this.launchLimit) break;
        if (coming(s) >= (targets.get(key) ?? 0)) continue;
        this.launch(s);
        more = true;
      }
    }
  }

  private launch(s: ShapeState<R>): void {
    const started = this.now();
    const launch: Launch<R> = { taken: false, done: Promise.resolve(undefined) };
    s.launching.push(launch);
    const settled = () => s.launching.splice(s.launching.indexOf(launch), 1);
    launch.done = this.launcher.launch(s.shape).then(
      (rt) => {
        settled();
        this.failures = 0;
        this.launchMs = nextLaunchEstimate(this.launchMs, this.now() - started);
        this.adjustLaunchLimit();
        if (this.stopped) {
          void this.discard(rt, 'standby_stopped');
          return undefined;
        }
        if (launch.taken) return rt;
        s.ready.push(rt);
        return undefined;
      },
      (err) => {
        settled();
        // A create that adopted this launch launches cold instead.
        if (launch.taken) {
          this.adopted--;
          this.cold++;
        }
        // A launch that gave up because the engine stops is no failure.
        if (this.stopped) return undefined;
        this.failures++;
        this.launcher.onError(err);
        // Back off while launches keep failing (5 s, 10 s, … up to a minute).
        this.timer ??= setTimeout(
          () => {
            this.timer = undefined;
            this.fill();
          },
          Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(4, this.failures - 1)),
        );
        this.timer.unref();
        return undefined;
      },
    );
    void launch.done.finally(() => this.fill());
  }

  /**
   * After each launch: one more at once if creates waited since the last one and the CPUs had
   * idle time meanwhile (the launches wait on more than the CPU), one fewer if they were saturated.
   */
  private adjustLaunchLimit(): void {
    const idle = this.cpuIdle();
    // Not known yet (too short an interval): the waits keep counting into the next look.
    if (idle === undefined) return;
    const waited = this.waited > 0;
    this.waited = 0;
    this.launchLimit = nextLaunchLimit(this.launchLimit, { idle, waited }, this.budget.launches, Math.max(this.budget.launches, this.budget.maxLaunches ?? 0));
  }

  status(): StandbyStatus {
    const targets = this.targets();
    const all = [...this.shapes.values()].flatMap((s) => s.ready);
    return {
      enabled: this.enabled,
      budget: {
        count: this.budget.count,
        memory_mb: this.budget.memoryMb,
        launches: this.launchLimit,
        launches_min: this.budget.launches,
        launches_max: Math.max(this.budget.launches, this.budget.maxLaunches ?? 0),
      },
      ready: all.length,
      launching: this.inFlight,
      frozen: all.filter((rt) => rt.frozen).length,
      claimed: this.claimed,
      adopted: this.adopted,
      cold: this.cold,
      launch_ms: Math.round(this.launchMs),
      shapes: [...this.shapes].map(([key, s]) => ({ shape: key, ready: s.ready.length, target: targets.get(key) ?? 0 })),
    };
  }

  /** Engine stop: no more launches; every ready browser ends (the launches in flight too). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const ready = [...this.shapes.values()].flatMap((s) => s.ready.splice(0));
    const launches = [...this.shapes.values()].flatMap((s) => s.launching.map((l) => l.done));
    await Promise.all([...ready.map((rt) => this.discard(rt, 'engine_stopped')), ...launches]);
    await Promise.all(this.ending);
  }
}
