/**
 * Probes a Browserdeck server before and while the app uses it: `/healthz` for the health dot,
 * and an authenticated list call to check that an API key is accepted before it is stored.
 */
import { request } from 'undici';

const TIMEOUT_MS = 5_000;

export async function checkHealth(url: string): Promise<void> {
  const res = await request(`${url}/healthz`, { method: 'GET', headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`/healthz answered ${res.statusCode}`);
}

/** Rejects with the server's message when the key is refused (401); any other answer means the key authenticated. */
export async function verifyKey(url: string, apiKey: string): Promise<void> {
  let res;
  try {
    res = await request(`${url}/org/projects?limit=1`, {
      method: 'GET',
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch (err) {
    throw new Error(`cannot reach ${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.body.text();
  if (res.statusCode === 401) {
    let message = 'the server refused this API key';
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {}
    throw new Error(message);
  }
}
