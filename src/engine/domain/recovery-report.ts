/**
 * What the start of an engine ended because its previous run stopped uncleanly (sessions whose
 * browsers nobody supervises any more, invocations and login flows that cannot finish). Each
 * recovery notes its count in the engine's one report (`services.recovery`, built in
 * compose.ts); the engine prints one line once every feature has started, so an operator can
 * see that a crash happened and what it cost.
 */
export class RecoveryReport {
  private readonly counts = new Map<string, number>();

  /** `what` is plural and says why, e.g. 'browser sessions (engine_restarted)'. */
  note(what: string, count: number): void {
    if (count <= 0) return;
    this.counts.set(what, (this.counts.get(what) ?? 0) + count);
  }

  /** The counts noted so far, cleared: null when nothing was recovered. */
  take(): Record<string, number> | null {
    const r = this.counts.size ? Object.fromEntries(this.counts) : null;
    this.counts.clear();
    return r;
  }
}

export function recoveredLine(r: Record<string, number>): string {
  return `recovered from an unclean stop: ended ${Object.entries(r)
    .map(([what, n]) => `${n} ${what}`)
    .join(', ')}`;
}
