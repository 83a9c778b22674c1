/**
 * The create-session form's state and its translation into a `POST /browsers` body (wire
 * §3.6): only options the operator set are sent, so server defaults apply to the rest and the
 * server's own validation message is what the operator sees when an option is rejected.
 */
import { DEFAULT_ON_CATEGORIES, TELEMETRY_CATEGORIES } from '../../../shared/wire/telemetry-categories';

export { TELEMETRY_CATEGORIES };
/** Server defaults (wire §3.0): these start checked in the custom telemetry editor. */
const DEFAULT_ON: ReadonlySet<string> = new Set(DEFAULT_ON_CATEGORIES);

export interface SessionForm {
  name: string;
  start_url: string;
  headless: boolean;
  stealth: boolean;
  kiosk_mode: boolean;
  gpu: boolean;
  timeout_seconds: string;
  viewport_width: string;
  viewport_height: string;
  viewport_refresh_rate: string;
  profile_by: 'none' | 'name' | 'id';
  profile: string;
  profile_save_changes: boolean;
  proxy_id: string;
  invocation_id: string;
  tags: Array<{ key: string; value: string }>;
  telemetry: 'default' | 'off' | 'custom';
  categories: Record<string, boolean>;
  chrome_policy: string;
}

export function emptySessionForm(): SessionForm {
  return {
    name: '',
    start_url: '',
    headless: false,
    stealth: false,
    kiosk_mode: false,
    gpu: false,
    timeout_seconds: '',
    viewport_width: '',
    viewport_height: '',
    viewport_refresh_rate: '',
    profile_by: 'none',
    profile: '',
    profile_save_changes: false,
    proxy_id: '',
    invocation_id: '',
    tags: [],
    telemetry: 'default',
    categories: Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, DEFAULT_ON.has(c)])),
    chrome_policy: '',
  };
}

function int(v: string): number | string {
  const n = Number(v);
  return Number.isInteger(n) ? n : v;
}

/** Builds the request body; throws only for what cannot be sent at all (malformed JSON). */
export function sessionBody(f: SessionForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (f.name.trim()) body.name = f.name.trim();
  if (f.start_url.trim()) body.start_url = f.start_url.trim();
  if (f.headless) body.headless = true;
  if (f.stealth) body.stealth = true;
  if (f.kiosk_mode) body.kiosk_mode = true;
  if (f.gpu) body.gpu = true;
  if (f.timeout_seconds.trim()) body.timeout_seconds = int(f.timeout_seconds.trim());
  if (f.viewport_width.trim() || f.viewport_height.trim() || f.viewport_refresh_rate.trim()) {
    const vp: Record<string, unknown> = { width: int(f.viewport_width.trim()), height: int(f.viewport_height.trim()) };
    if (f.viewport_refresh_rate.trim()) vp.refresh_rate = int(f.viewport_refresh_rate.trim());
    body.viewport = vp;
  }
  if (f.profile_by !== 'none' && f.profile.trim())
    body.profile = { [f.profile_by]: f.profile.trim(), ...(f.profile_save_changes ? { save_changes: true } : {}) };
  if (f.proxy_id.trim()) body.proxy_id = f.proxy_id.trim();
  if (f.invocation_id.trim()) body.invocation_id = f.invocation_id.trim();
  const tags = f.tags.filter((t) => t.key.trim());
  if (tags.length) body.tags = Object.fromEntries(tags.map((t) => [t.key.trim(), t.value]));
  if (f.telemetry === 'off') body.telemetry = { enabled: false };
  if (f.telemetry === 'custom') body.telemetry = { browser: Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, { enabled: !!f.categories[c] }])) };
  if (f.chrome_policy.trim()) {
    try {
      body.chrome_policy = JSON.parse(f.chrome_policy);
    } catch (err) {
      throw new Error(`Chrome policy is not valid JSON: ${(err as Error).message}`);
    }
  }
  return body;
}
