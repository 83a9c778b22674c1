import { describe, expect, it } from 'vitest';
import { effectiveLocation, mergeLocation, normalizeLocale, normalizeTimezone } from './session-location.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { status: number; code: string }).status + ' ' + (err as { code: string }).code;
  }
  return 'ok';
};

describe('session location', () => {
  it('normalizes spelling and deprecated codes', () => {
    expect(normalizeTimezone('asia/tokyo')).toBe('Asia/Tokyo');
    expect(normalizeLocale('en-us')).toBe('en-US');
    expect(normalizeLocale('iw-IL')).toBe('he-IL');
  });

  it('refuses what ICU does not know with 400 invalid_browser_location', () => {
    for (const bad of [() => normalizeTimezone('Mars/Base'), () => normalizeLocale('not a tag'), () => normalizeLocale('zz-ZZ')])
      expect(code(bad)).toBe('400 invalid_browser_location');
  });

  it('merges per field: omitted keeps, null clears, nothing left is none', () => {
    const both = mergeLocation(undefined, { timezone: 'UTC', locale: 'de-DE' });
    expect(both).toEqual({ timezone: 'UTC', locale: 'de-DE' });
    expect(mergeLocation(both, { locale: null })).toEqual({ timezone: 'UTC' });
    expect(mergeLocation(both, {})).toEqual(both);
    expect(mergeLocation({ timezone: 'UTC' }, { timezone: null })).toBeUndefined();
  });

  it('reports overrides and the node default as sources', () => {
    const e = effectiveLocation({ locale: 'fr-FR' }, true);
    expect(e).toMatchObject({ locale: 'fr-FR', locale_source: 'override', timezone_source: 'metro', pending: true });
    expect(e.timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
