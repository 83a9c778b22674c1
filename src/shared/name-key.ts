/** Case- and accent-insensitive form of a name, used for uniqueness and exact-name lookups. */
export function nameKey(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
