/**
 * What the start of an engine ended because its previous run stopped uncleanly (sessions whose
 * browsers nobody supervises any more, invocations and login flows that cannot finish). Each
 * recovery notes its count here, under the engine's database handle (one per engine, also when
 * several engines share a process, as in tests); the engine prints one line once every feature
 * has started, so an operator can see that a crash happened and what it cost.
 */
const reports = new WeakMap<object, Map<string, number>>();

/** `what` is plural and says why, e.g. 'browser sessions (engine_restarted)'. */
export function noteRecovered(engineDb: object, what: string, count: number): void {
  if (count <= 0) return;
  const r = reports.get(engineDb) ?? new Map<string, number>();
  r.set(what, (r.get(what) ?? 0) + count);
  reports.set(engineDb, r);
}

/** The counts noted so far, cleared: null when nothing was recovered. */
export function takeRecovered(engineDb: object): Record<string, number> | null {
  const r = reports.get(engineDb);
  reports.delete(engineDb);
  return r && r.size ? Object.fromEntries(r) : null;
}

export function recoveredLine(r: Record<string, number>): string {
  return `recovered from an unclean stop: ended ${Object.entries(r)
    .map(([what, n]) => `${n} ${what}`)
    .join(', ')}`;
}
