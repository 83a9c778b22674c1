/**
 * The `onSessionStart` listeners of the session manager. A create awaits them before it
 * answers (the telemetry collector must watch the first page before a deferred `start_url`
 * loads), all at once and each bounded: a listener still busy after `boundMs` is logged and
 * left to finish in the background, a failing one is logged — neither fails the create nor
 * holds it forever.
 */
import type { FastifyBaseLogger } from 'fastify';

export type StartListener<H> = (h: H) => void | Promise<void>;

export const START_LISTENER_BOUND_MS = 10_000;

export class StartListeners<H extends { id: string }> {
  private readonly fns = new Set<StartListener<H>>();

  constructor(
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
    private readonly boundMs = START_LISTENER_BOUND_MS,
  ) {}

  add(fn: StartListener<H>): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }

  /** Runs every listener for a session that just started; resolves when all are done or over the bound. */
  async run(h: H): Promise<void> {
    await Promise.all([...this.fns].map((fn) => this.runOne(fn, h)));
  }

  private async runOne(fn: StartListener<H>, h: H): Promise<void> {
    let result: void | Promise<void>;
    try {
      result = fn(h);
    } catch (err) {
      this.log.error({ err, session: h.id }, 'session start listener failed');
      return;
    }
    if (!result || typeof (result as Promise<void>).then !== 'function') return;
    const done = Promise.resolve(result).then(
      () => true,
      (err) => {
        this.log.error({ err, session: h.id }, 'session start listener failed');
        return true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.boundMs);
      timer.unref();
    });
    const finished = await Promise.race([done, late]);
    clearTimeout(timer);
    if (!finished) this.log.warn({ session: h.id, boundMs: this.boundMs }, 'session start listener still busy; the create goes on without it');
  }
}
