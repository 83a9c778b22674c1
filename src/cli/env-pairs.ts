import { usageError } from './cli-error.js';

/** `KEY=VALUE` arguments as an object; a pair without `=` is a usage error. */
export function parseEnvPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of pairs) {
    const i = kv.indexOf('=');
    if (i <= 0) throw usageError(`--env takes KEY=VALUE, not '${kv}'`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}
