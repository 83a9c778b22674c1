/**
 * A session's `location` (Kernel docs, newer than SDK 0.109): time zone and locale overrides.
 * Values are checked against this engine's ICU and normalized (`en-us` → `en-US`, deprecated
 * `iw-IL` → `he-IL`) before anything changes; an unsupported one is 400 `invalid_browser_location`.
 *
 * The region default ("metro") is what the browser shows without an override on this node: the
 * engine host's time zone and Chromium's own `en-US`. Kernel maps its regions to metros
 * (us-east → New York); a self-hosted node's region is only a name, so the node's own clock
 * location is the honest default (an operator sets TZ for the engine to change it).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import { LocationEmulation, LocationEmulationSlot } from '../../runtime/cdp/location-emulation.js';

/** The stored overrides (absent = region default). */
export interface LocationOverride {
  timezone?: string;
  locale?: string;
}
/** A create or PATCH body: `null` clears one override, an omitted key leaves it. */
export interface LocationRequest {
  timezone?: string | null;
  locale?: string | null;
}

export interface EffectiveLocation {
  timezone: string;
  locale: string;
  timezone_source: 'override' | 'metro';
  locale_source: 'override' | 'metro';
  pending: boolean;
}

const invalid = (field: string, value: string, why: string) =>
  new DomainError(400, 'invalid_browser_location', `location.${field} '${value}' ${why}`, [{ code: 'invalid_field', message: `location.${field}: ${why}` }]);

/** The canonical IANA name of a time zone, or a 400. */
export function normalizeTimezone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timezone', tz, 'is not an IANA time zone this engine knows (e.g. America/New_York)');
  }
}

/** The canonical BCP 47 tag of a locale this engine has data for, or a 400. */
export function normalizeLocale(tag: string): string {
  let canonical: string;
  try {
    [canonical] = Intl.getCanonicalLocales(tag);
  } catch {
    throw invalid('locale', tag, 'is not a BCP 47 language tag (e.g. en-US)');
  }
  if (!canonical || Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 0) throw invalid('locale', tag, 'is not a locale this engine supports');
  return canonical;
}

/** Applies a request onto the current overrides (create: none); undefined when none remain. */
export function mergeLocation(current: LocationOverride | undefined, req: LocationRequest | undefined): LocationOverride | undefined {
  const next: LocationOverride = { ...current };
  if (req?.timezone !== undefined) {
    if (req.timezone === null) delete next.timezone;
    else next.timezone = normalizeTimezone(req.timezone);
  }
  if (req?.locale !== undefined) {
    if (req.locale === null) delete next.locale;
    else next.locale = normalizeLocale(req.locale);
  }
  return next.timezone || next.locale ? next : undefined;
}

/** The node's defaults: its host's time zone, and the locale Chromium starts with here. */
/** The host's time zone per value of TZ: resolving it builds an Intl.DateTimeFormat (ICU), which costs more than the rest of a Session object. */
let hostZone: { tz: string | undefined; zone: string } | undefined;

export function metroLocation(): { timezone: string; locale: string } {
  const tz = process.env.TZ;
  if (!hostZone || hostZone.tz !== tz) hostZone = { tz, zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
  return { timezone: hostZone.zone, locale: 'en-US' };
}

export function effectiveLocation(o: LocationOverride | undefined, pending: boolean): EffectiveLocation {
  const metro = metroLocation();
  return {
    timezone: o?.timezone ?? metro.timezone,
    locale: o?.locale ?? metro.locale,
    timezone_source: o?.timezone ? 'override' : 'metro',
    locale_source: o?.locale ? 'override' : 'metro',
    pending,
  };
}

/**
 * Applies the overrides in the session's running browser (every target, new ones too): the
 * create path calls it once the browser is up, PATCH after storing a change. Without overrides
 * and none applied before, nothing connects.
 */
export async function applyLocation(handle: SessionHandle, o: LocationOverride | undefined): Promise<void> {
  if (!o && !LocationEmulation.active(handle)) return;
  await handle.scope.get(LocationEmulationSlot).apply(o ?? {});
}
