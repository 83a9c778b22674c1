import { describe, expect, it } from 'vitest';
import {
  checkChromePolicy,
  checkExtensions,
  normalizeTelemetry,
  validateName,
  validateStartUrl,
  validateTags,
  validateTimeout,
  validateViewport,
} from './session-options.js';

/** The Error object fields a refusal carries (code and message; the status is http's business). */
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('validateViewport', () => {
  it('accepts the bounds and drops unknown fields', () => {
    expect(validateViewport({ width: 320, height: 200 })).toEqual({ width: 320, height: 200 });
    expect(validateViewport({ width: 7680, height: 4320, refresh_rate: 60, extra: 1 } as never)).toEqual({ width: 7680, height: 4320, refresh_rate: 60 });
  });

  it('refuses sizes outside the bounds as 400s naming the field', () => {
    expect(refusal(() => validateViewport({ width: 319, height: 600 }))).toEqual({
      code: 'invalid_request',
      message: 'viewport.width: must be between 320 and 7680',
    });
    expect(refusal(() => validateViewport({ width: 800, height: 4321 }, 'pool.viewport')).message).toBe('pool.viewport.height: must be between 200 and 4320');
  });

  it('refuses a refresh rate the screencast cannot deliver as a 422', () => {
    expect(refusal(() => validateViewport({ width: 800, height: 600, refresh_rate: 61 })).code).toBe('unsupported_refresh_rate');
    expect(refusal(() => validateViewport({ width: 800, height: 600, refresh_rate: 0 })).code).toBe('unsupported_refresh_rate');
  });
});

describe('validateStartUrl', () => {
  it('accepts http, https, about and data URLs', () => {
    for (const u of ['https://example.com/a?b', 'http://10.0.0.1:8080', 'about:blank', 'data:text/html,<p>x']) expect(validateStartUrl(u)).toBe(u);
  });

  it('refuses relative URLs and other schemes', () => {
    expect(refusal(() => validateStartUrl('/relative')).message).toBe('start_url: must be an absolute URL');
    for (const u of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://settings', 'ftp://x']) {
      expect(refusal(() => validateStartUrl(u)).message, u).toBe('start_url: must be an http, https, about or data URL');
    }
  });
});

describe('validateTimeout', () => {
  it('defaults to 60 and accepts the inclusive bounds', () => {
    expect(validateTimeout(undefined)).toBe(60);
    expect(validateTimeout(10)).toBe(10);
    expect(validateTimeout(259_200)).toBe(259_200);
  });

  it('refuses out-of-range and fractional timeouts', () => {
    for (const t of [9, 259_201, 30.5, NaN])
      expect(refusal(() => validateTimeout(t)).message, String(t)).toMatch(/^timeout_seconds: must be an integer from 10 to 259200$/);
  });
});

describe('validateTags and validateName', () => {
  it('accepts up to 50 tags of bounded keys and values', () => {
    expect(validateTags(undefined)).toEqual({});
    expect(validateTags(null)).toEqual({});
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(255)]));
    expect(validateTags(fifty)).toEqual(fifty);
  });

  it('refuses a 51st tag, an empty or long key, a long or non-string value', () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(refusal(() => validateTags(many)).message).toBe('tags: at most 50 tags');
    expect(refusal(() => validateTags({ '': 'v' })).message).toBe('tags.: keys must be 1 to 255 characters');
    expect(refusal(() => validateTags({ ['k'.repeat(256)]: 'v' })).message).toMatch(/keys must be 1 to 255/);
    expect(refusal(() => validateTags({ k: 'v'.repeat(256) })).message).toBe('tags.k: values must be strings of at most 255 characters');
    expect(refusal(() => validateTags({ k: 5 } as never)).message).toMatch(/values must be strings/);
  });

  it('allows names of A-Z a-z 0-9 . _ - only', () => {
    expect(validateName('pool-1.a_b')).toBe('pool-1.a_b');
    for (const n of ['', 'a b', 'ä', 'a/b', 'x'.repeat(256)]) expect(refusal(() => validateName(n)).message, n).toMatch(/^name: must be 1 to 255 characters/);
  });
});

describe('normalizeTelemetry', () => {
  const enabled = (t: ReturnType<typeof normalizeTelemetry>) =>
    Object.entries(t.browser)
      .filter(([, v]) => v.enabled)
      .map(([k]) => k)
      .sort();

  it('turns on the default categories when nothing or enabled: true is asked', () => {
    expect(enabled(normalizeTelemetry(undefined))).toEqual(['captcha', 'connection', 'control', 'system']);
    expect(enabled(normalizeTelemetry({ enabled: true }))).toEqual(['captcha', 'connection', 'control', 'system']);
  });

  it('turns everything off for null or enabled: false', () => {
    expect(enabled(normalizeTelemetry(null))).toEqual([]);
    expect(enabled(normalizeTelemetry({ enabled: false }))).toEqual([]);
  });

  it('applies per-category switches over the defaults, and over a stored config on update', () => {
    expect(enabled(normalizeTelemetry({ browser: { network: { enabled: true }, control: { enabled: false } } }))).toEqual([
      'captcha',
      'connection',
      'network',
      'system',
    ]);
    const stored = normalizeTelemetry({ browser: { console: { enabled: true } } });
    // enabled: true on update keeps what was stored instead of resetting to the defaults.
    expect(enabled(normalizeTelemetry({ enabled: true }, stored))).toEqual(enabled(stored));
    expect(enabled(normalizeTelemetry({ browser: { page: { enabled: true } } }, stored))).toEqual([...enabled(stored), 'page'].sort());
  });

  it('keeps network.bodies (response bodies for the HAR) only when asked, across updates that do not name it', () => {
    expect(normalizeTelemetry({ browser: { network: { enabled: true } } }).browser.network).toEqual({ enabled: true });
    const stored = normalizeTelemetry({ browser: { network: { enabled: true, bodies: true } } });
    expect(stored.browser.network).toEqual({ enabled: true, bodies: true });
    expect(normalizeTelemetry({ enabled: true, browser: { network: { enabled: true } } }, stored).browser.network).toEqual({ enabled: true, bodies: true });
    expect(normalizeTelemetry({ browser: { network: { bodies: false } } }, stored).browser.network).toEqual({ enabled: true });
    expect(normalizeTelemetry(null, stored).browser.network).toEqual({ enabled: false });
  });

  it('refuses unknown categories and enabled: false combined with browser', () => {
    expect(refusal(() => normalizeTelemetry({ browser: { dom: { enabled: true } } })).message).toBe('telemetry.browser.dom: is not a telemetry category');
    expect(refusal(() => normalizeTelemetry({ enabled: false, browser: {} })).message).toBe('telemetry: enabled: false cannot be combined with browser');
  });
});

describe('checkChromePolicy and checkExtensions', () => {
  it('accepts policy names of letters and digits', () => {
    expect(checkChromePolicy(undefined)).toBeUndefined();
    const p = { URLBlocklist: ['example.com'], DefaultPopupsSetting: 2 };
    expect(checkChromePolicy(p)).toBe(p);
  });

  it('refuses odd policy names and more than 256 KB of policies', () => {
    for (const n of ['1Policy', 'URL-Blocklist', '', 'a'.repeat(101), '__proto__']) {
      expect(refusal(() => checkChromePolicy({ [n]: true })).message, n).toMatch(/a policy name is letters and digits/);
    }
    expect(refusal(() => checkChromePolicy({ URLBlocklist: ['x'.repeat(256 * 1024)] })).message).toBe('chrome_policy: at most 256 KB of policies');
  });

  it('wants exactly one of id and name per extension selector', () => {
    expect(() => checkExtensions(undefined)).not.toThrow();
    expect(() => checkExtensions([{ id: 'a' }, { name: 'b' }])).not.toThrow();
    expect(refusal(() => checkExtensions([{ id: 'a' }, {}])).message).toBe('extensions[1]: give the extension id or name');
    expect(refusal(() => checkExtensions([{ id: 'a', name: 'b' }], 'pool.extensions')).message).toBe('pool.extensions[0]: give either id or name, not both');
  });
});
