/**
 * What a client's New Session request may ask of the session's chromedriver, and what its
 * answer may tell the client. The browser already runs: chromedriver only attaches to it
 * (`goog:chromeOptions.debuggerAddress`), so every option that would make chromedriver launch a
 * browser or pass it flags (`binary`, `args`, `extensions`, `prefs`, `localState`…) is dropped,
 * in `alwaysMatch`, every `firstMatch` entry and the legacy `desiredCapabilities` alike. The
 * W3C capabilities that describe a session's behaviour (timeouts, page load strategy, prompt
 * handling…) pass unchanged. `webSocketUrl: true` is answered with the engine's own BiDi
 * address for the session rather than chromedriver's (which would run its mapper in an extra
 * tab of the tenant's browser and is only reachable inside the jail).
 */

type Json = Record<string, unknown>;

/** Capabilities that would start or configure another browser, or that only chromedriver's own launch honours. */
const DROPPED = ['goog:chromeOptions', 'webSocketUrl', 'proxy', 'browserName', 'browserVersion', 'platformName'];

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stripped(caps: unknown): { caps: Json; bidi: boolean } {
  if (!isObject(caps)) return { caps: {}, bidi: false };
  const out: Json = {};
  for (const [k, v] of Object.entries(caps)) if (!DROPPED.includes(k)) out[k] = v;
  return { caps: out, bidi: caps.webSocketUrl === true };
}

export interface NewSessionRequest {
  /** The body to send to chromedriver. */
  body: Json;
  /** Whether the client asked for WebDriver BiDi (`webSocketUrl: true`). */
  bidi: boolean;
}

/**
 * The New Session body chromedriver gets for a client's `body`: the client's W3C capabilities
 * minus DROPPED, with `goog:chromeOptions` exactly `{debuggerAddress}`. A body that is not a
 * JSON object is sent as an empty request (chromedriver then answers for itself).
 */
export function newSessionRequest(body: unknown, debuggerAddress: string): NewSessionRequest {
  const capabilities = isObject(body) && isObject(body.capabilities) ? body.capabilities : {};
  const always = stripped(capabilities.alwaysMatch);
  const first = Array.isArray(capabilities.firstMatch) ? capabilities.firstMatch.map(stripped) : [];
  const bidi = always.bidi || first.some((f) => f.bidi);
  const alwaysMatch: Json = { ...always.caps, 'goog:chromeOptions': { debuggerAddress } };
  const caps: Json = { alwaysMatch };
  if (first.length) caps.firstMatch = first.map((f) => f.caps);
  return { body: { capabilities: caps }, bidi };
}

/**
 * chromedriver's answer to a New Session (or any answer carrying capabilities) with its
 * internal addresses removed: `goog:chromeOptions.debuggerAddress` (the jail's loopback) and
 * `webSocketUrl`, replaced by `bidiUrl` when the client asked for BiDi.
 */
export function publicCapabilities(answer: unknown, bidiUrl: string | undefined): unknown {
  if (!isObject(answer) || !isObject(answer.value)) return answer;
  const value = answer.value;
  const caps = isObject(value.capabilities) ? value.capabilities : value;
  delete caps['goog:chromeOptions'];
  delete caps.webSocketUrl;
  if (isObject(caps.chrome)) delete caps.chrome.userDataDir;
  if (bidiUrl) caps.webSocketUrl = bidiUrl;
  return answer;
}
