/** Output of `npm run image`: each step with its seconds, and a failure that ends the build. */

/** Runs `fn`, prints `[image] what: N s` when it settles, and returns its result. */
export async function step(what, fn) {
  const t0 = performance.now();
  process.stderr.write(`[image] ${what}…\n`);
  try {
    return await fn();
  } finally {
    process.stderr.write(`[image] ${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
}

export function say(line) {
  process.stderr.write(`[image] ${line}\n`);
}

/** Prints why and exits 1. */
export function fail(why) {
  process.stderr.write(`[image] FAILED: ${why}\n`);
  process.exit(1);
}
