/**
 * Polls a read (e.g. an API record) until it satisfies a condition and returns the value that
 * did. Bounded by attempts rather than wall time, so a loaded machine only makes it slower;
 * the error shows the last value read.
 */
export async function pollUntil<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, attempts = 150, intervalMs = 200): Promise<T> {
  let v = await get();
  for (let i = 0; i < attempts && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, intervalMs));
    v = await get();
  }
  if (!ok(v)) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(v).slice(0, 800)}`);
  return v;
}
