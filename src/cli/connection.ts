/**
 * Which engine a command talks to, and with which key: `--url`, then BROWSERDECK_URL /
 * KERNEL_BASE_URL, then the login file, then the local default (`browserdeck serve`'s port);
 * KERNEL_API_KEY, then the login file. Never the hosted service's URL, which the official
 * client would pick when given none.
 */
import Kernel from '@onkernel/sdk';
import { usageError } from './cli-error.js';
import { readLoginFile } from './login-file.js';

export const DEFAULT_URL = 'http://127.0.0.1:8420';

export interface Connection {
  url: string;
  apiKey: string;
}

export function resolveUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = flag ?? env.BROWSERDECK_URL ?? env.KERNEL_BASE_URL ?? readLoginFile().url ?? DEFAULT_URL;
  try {
    new URL(url);
  } catch {
    throw usageError(`'${url}' is not a URL: set BROWSERDECK_URL (e.g. ${DEFAULT_URL}) or pass --url`);
  }
  return url.replace(/\/+$/, '');
}

export function resolveConnection(flagUrl: string | undefined, env: NodeJS.ProcessEnv = process.env): Connection {
  const url = resolveUrl(flagUrl, env);
  const apiKey = env.KERNEL_API_KEY || readLoginFile().api_key;
  if (!apiKey) throw usageError('no API key: set KERNEL_API_KEY or run `browserdeck login`');
  return { url, apiKey };
}

/** The official client for a connection; no retries, so an error is reported once and at once. */
export function clientFor(c: Connection): Kernel {
  return new Kernel({ apiKey: c.apiKey, baseURL: c.url, maxRetries: 0 });
}
