/**
 * Standby browsers: launched, jailed, idle browsers per shape (standby-shape.ts) that a
 * `POST /browsers` claims instead of launching (session-manager.ts). Each is a RunningSession
 * made with the id, directories and jail its session will have; it has no database row until a
 * create claims it, so it counts against no org or project limit and no one has seen it. A
 * claimed browser leaves the standby for good; refills run in the background, one launch at a
 * time (the machine's cores serve sessions first).
 *
 * Sizing: every create that fits a shape counts as demand for it; a shape wants as many ready
 * browsers as it had creates in the last minute (the default headless shape at least one, any
 * shape asked for in the last ten minutes at least one), most demanded first, within the
 * operator's budget of browsers (`--standby N`) and memory (`--standby-memory MB`, at an
 * estimated cost per browser). Surplus idle browsers end.
 */
import type { RunningSession } from '../../runtime/session/running-session.js';
import { DEFAULT_SHAPE, shapeKey, type StandbyShape } from './standby-shape.js';
import type { StandbyStatus } from '../../../shared/wire/health.js';

/** Estimated PSS of one idle jailed browser (issue 14 measured 164 MB headless); headful adds Xvfb. */
const EST_MB = { headless: 200, headful: 260 };
const RATE_WINDOW_MS = 60_000;
const KEEP_WINDOW_MS = 600_000;
const RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;

export interface StandbyBudget {
  count: number;
  memoryMb: number;
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

interface ShapeState<R> {
  shape: StandbyShape;
  ready: R[];
  demand: number[];
}

export type { StandbyStatus };

export class StandbyBrowsers<R extends StandbyBrowser = RunningSession> {
  private readonly shapes = new Map<string, ShapeState<R>>();
  private launching?: { key: string; promise: Promise<void> };
  private stopped = false;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private claimed = 0;
  private cold = 0;
  /** Browsers being ended (surplus, recycled): the engine's stop waits for them. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly budget: StandbyBudget,
    private readonly launcher: StandbyLauncher<R>,
    private readonly now: () => number = Date.now,
  ) {
    this.state(DEFAULT_SHAPE);
  }

  private discard(rt: R, reason: string): Promise<void> {
    const p = this.launcher.discard(rt, reason).catch(() => {});
    this.ending.add(p);
    void p.finally(() => this.ending.delete(p));
    return p;
  }

  get enabled(): boolean {
    return this.budget.count > 0 && this.budget.memoryMb > 0;
  }

  private state(shape: StandbyShape): ShapeState<R> {
    const key = shapeKey(shape);
    let s = this.shapes.get(key);
    if (!s) this.shapes.set(key, (s = { shape, ready: [], demand: [] }));
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
   * A ready browser of this shape, now taken out of the standby for good, or undefined (the
   * create launches cold). Counts as demand either way and starts a refill.
   */
  take(shape: StandbyShape): R | undefined {
    if (!this.enabled || this.stopped) return undefined;
    const s = this.state(shape);
    s.demand.push(this.now());
    let rt: R | undefined;
    while ((rt = s.ready.shift()) && rt.ended);
    if (rt) this.claimed++;
    else this.cold++;
    this.fill();
    return rt;
  }

  /** A taken browser that was never adopted (the create failed before): ready again. */
  giveBack(shape: StandbyShape, rt: R): void {
    this.claimed--;
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
      const recent = s.demand.filter((t) => now - t < RATE_WINDOW_MS).length;
      const floor = key === shapeKey(DEFAULT_SHAPE) || s.demand.length > 0 ? 1 : 0;
      return { key, cost: s.shape.headless ? EST_MB.headless : EST_MB.headful, want: Math.max(floor, recent), n: 0 };
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

  /** Ends surplus browsers and starts the next launch the targets call for (one at a time). */
  fill(): void {
    if (this.stopped || !this.enabled || this.timer) return;
    const targets = this.targets();
    for (const [key, s] of this.shapes) {
      const surplus = s.ready.length - (targets.get(key) ?? 0);
      for (const rt of s.ready.splice(0, Math.max(0, surplus))) void this.discard(rt, 'standby_surplus');
    }
    if (this.launching) return;
    const next = [...this.shapes].find(([key, s]) => s.ready.length < (targets.get(key) ?? 0));
    if (!next) return;
    const [key, s] = next;
    const promise = this.launcher.launch(s.shape).then(
      (rt) => {
        this.failures = 0;
        if (this.stopped) return this.discard(rt, 'standby_stopped');
        s.ready.push(rt);
      },
      (err) => {
        // A launch that gave up because the engine stops is no failure.
        if (this.stopped) return;
        this.failures++;
        this.launcher.onError(err);
        // Back off while launches keep failing (5 s, 10 s, … up to a minute).
        this.timer = setTimeout(
          () => {
            this.timer = undefined;
            this.fill();
          },
          Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(4, this.failures - 1)),
        );
        this.timer.unref();
      },
    );
    this.launching = {
      key,
      promise: promise.finally(() => {
        this.launching = undefined;
        this.fill();
      }),
    };
  }

  status(): StandbyStatus {
    const targets = this.targets();
    const all = [...this.shapes.values()].flatMap((s) => s.ready);
    return {
      enabled: this.enabled,
      budget: { count: this.budget.count, memory_mb: this.budget.memoryMb },
      ready: all.length,
      launching: this.launching ? 1 : 0,
      frozen: all.filter((rt) => rt.frozen).length,
      claimed: this.claimed,
      cold: this.cold,
      shapes: [...this.shapes].map(([key, s]) => ({ shape: key, ready: s.ready.length, target: targets.get(key) ?? 0 })),
    };
  }

  /** Engine stop: no more launches; every ready browser ends (the launch in flight too). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const ready = [...this.shapes.values()].flatMap((s) => s.ready.splice(0));
    await Promise.all([...ready.map((rt) => this.discard(rt, 'engine_stopped')), this.launching?.promise]);
    await Promise.all(this.ending);
  }
}
