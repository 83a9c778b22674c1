/**
 * Case- and accent-folded form of a name, used for uniqueness and exact-name lookups. Pure and
 * browser-safe, so the domain (project/key rules), the store (migration backfills) and the UI all
 * fold names the same way.
 */
export function nameKey(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
