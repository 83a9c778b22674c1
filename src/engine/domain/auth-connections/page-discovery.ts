/**
 * What a login page asks for, read from the live DOM in one `page.evaluate`: visible input
 * fields (label, selector, type, required, hint), MFA method choices, SSO buttons, sign-in
 * options (radio choices such as account pickers) and the website's own error text. The script
 * runs inside the page, so it is plain browser JavaScript with no imports.
 */
import type { Page } from 'playwright-core';

export interface RawField {
  name: string;
  label: string;
  selector: string;
  type: 'text' | 'email' | 'password' | 'tel' | 'number' | 'url' | 'code' | 'totp';
  placeholder?: string;
  hint?: string;
  required: boolean;
  autocomplete?: string;
}

export interface RawChoice {
  kind: 'mfa' | 'sso' | 'sign_in';
  label: string;
  /** mfa: sms|call|email|totp|push|password|switch; sso: provider name. */
  value: string;
  selector: string;
  description?: string;
}

export interface PageSnapshot {
  url: string;
  title: string;
  fields: RawField[];
  choices: RawChoice[];
  error?: string;
  ready: boolean;
}

/*
 * The page's DOM, as far as discoverInPage uses it. The engine compiles without the DOM lib
 * (tsconfig.engine.json: engine code has no document); these module-scoped declarations describe
 * what the function finds in the page, where it runs as source text, and shadow the DOM lib's
 * names where a config has it (tsconfig.json).
 */
interface PageElement {
  readonly nodeType: number;
  readonly textContent: string | null;
  /** HTML elements only (an SVG element has none). */
  readonly innerText?: string;
  readonly id: string;
  readonly tagName: string;
  readonly parentElement: PageElement | null;
  readonly previousElementSibling: PageElement | null;
  getAttribute(name: string): string | null;
  closest(selector: string): PageElement | null;
  contains(other: PageElement): boolean;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getBoundingClientRect(): { width: number; height: number };
}
/** An input, textarea, select or button. */
interface PageInput extends PageElement {
  readonly name: string;
  readonly type: string;
  readonly value: string;
  readonly placeholder: string;
  readonly required: boolean;
  readonly disabled: boolean;
  readonly labels: ArrayLike<PageElement> | null;
}
declare const document: {
  readonly title: string;
  readonly readyState: string;
  readonly body: PageElement;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getElementById(id: string): PageElement | null;
};
declare const location: { readonly href: string };
declare const CSS: { escape(s: string): string };
declare function getComputedStyle(el: PageElement): { readonly visibility: string; readonly display: string };

function discoverInPage(): PageSnapshot {
  const visible = (el: PageElement): boolean => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const unique = (sel: string): boolean => {
    try {
      return document.querySelectorAll(sel).length === 1;
    } catch {
      return false;
    }
  };
  const cssPath = (el: PageElement): string => {
    if (el.id && unique('#' + CSS.escape(el.id))) return '#' + CSS.escape(el.id);
    const name = el.getAttribute('name');
    if (name) {
      const s = `${el.tagName.toLowerCase()}[name="${name.replace(/["\\]/g, '\\$&')}"]`;
      if (unique(s)) return s;
    }
    const parts: string[] = [];
    let e: PageElement | null = el;
    while (e && e !== document.body && e.nodeType === 1) {
      let i = 1;
      let sib = e.previousElementSibling;
      while (sib) {
        if (sib.tagName === e.tagName) i++;
        sib = sib.previousElementSibling;
      }
      parts.unshift(`${e.tagName.toLowerCase()}:nth-of-type(${i})`);
      e = e.parentElement;
    }
    return 'body > ' + parts.join(' > ');
  };
  const xpath = (el: PageElement): string => {
    const parts: string[] = [];
    let e: PageElement | null = el;
    while (e && e.nodeType === 1) {
      let i = 1;
      let sib = e.previousElementSibling;
      while (sib) {
        if (sib.tagName === e.tagName) i++;
        sib = sib.previousElementSibling;
      }
      parts.unshift(`${e.tagName.toLowerCase()}[${i}]`);
      e = e.parentElement;
    }
    return '/' + parts.join('/');
  };
  const text = (el: PageElement | null | undefined): string => (el?.innerText ?? el?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const labelOf = (el: PageInput): string => {
    if (el.labels && el.labels.length) return text(el.labels[0]);
    const aria = el.getAttribute('aria-label');
    if (aria) return aria.trim();
    const by = el.getAttribute('aria-labelledby');
    if (by)
      return by
        .split(/\s+/)
        .map((id) => text(document.getElementById(id)))
        .join(' ')
        .trim();
    return (el.placeholder || el.name || el.id || '').trim();
  };
  const hintOf = (el: PageElement): string | undefined => {
    const described = el.getAttribute('aria-describedby');
    if (described) {
      const t = described
        .split(/\s+/)
        .map((id) => text(document.getElementById(id)))
        .join(' ')
        .trim();
      if (t) return t;
    }
    const form = el.closest('form');
    const scope = form?.parentElement ?? document.body;
    for (const c of Array.from(scope.querySelectorAll('.hint, .help, .help-text, .description, p'))) {
      if (form && form.contains(c) && c.contains(el)) continue;
      const t = text(c);
      if (t && visible(c) && /code|sent|phone|email|enter|authenticator/i.test(t)) return t;
    }
    return undefined;
  };
  const fields: RawField[] = [];
  const skip = ['hidden', 'submit', 'button', 'image', 'reset', 'checkbox', 'radio', 'file', 'range', 'color'];
  for (const el of Array.from(document.querySelectorAll('input, textarea, select')) as PageInput[]) {
    if (skip.includes(el.type) || !visible(el) || el.disabled) continue;
    const label = labelOf(el);
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    const hay = `${el.name} ${el.id} ${label} ${ac}`.toLowerCase();
    let type: RawField['type'] = 'text';
    if (el.type === 'password') type = 'password';
    else if (ac === 'one-time-code' || /\b(otp|code|token|2fa|mfa|verification|passcode)\b/.test(hay))
      type = /authenticator|totp|\bapp\b/.test(hay) ? 'totp' : 'code';
    else if (['email', 'tel', 'number', 'url'].includes(el.type)) type = el.type as RawField['type'];
    const hint = type === 'code' || type === 'totp' ? hintOf(el) : undefined;
    fields.push({
      name: el.name || el.id || `field_${fields.length}`,
      label,
      selector: cssPath(el),
      type,
      placeholder: el.placeholder || undefined,
      hint,
      required: el.required,
      autocomplete: ac || undefined,
    });
  }
  const choices: RawChoice[] = [];
  // "Sign in with <Provider>": well-known providers and any other one-word provider name
  // (company IdPs such as "ExampleID"), but not "continue with email/phone/password/…".
  const ssoKnown = /(?:sign in|log in|login|continue|sign up)\s+with\s+(google|github|microsoft|apple|facebook|linkedin|okta|twitter|x|amazon|slack)\b/i;
  const ssoAny = /(?:sign in|log in|login|continue|sign up)\s+(?:with|using|via)\s+([A-Za-z][A-Za-z0-9_.-]{1,39})\s*$/i;
  const notSso = /^(e-?mail|phone|password|passkey|code|sms|text|username|your|an?|the|another|magic)$/i;
  const mfa: Array<[RegExp, string]> = [
    [/\b(text|sms)\b/i, 'sms'],
    [/\bcall\b/i, 'call'],
    [/\be-?mail\b/i, 'email'],
    [/authenticator|totp/i, 'totp'],
    [/\bpush\b|notification|approve on/i, 'push'],
    [/another (method|way)|try another|other options/i, 'switch'],
  ];
  for (const el of Array.from(document.querySelectorAll('button, a, [role=button], input[type=submit], input[type=button]'))) {
    if (!visible(el)) continue;
    const label = text(el) || (el as PageInput).value || el.getAttribute('aria-label') || '';
    if (!label || label.length > 80) continue;
    const any = ssoAny.exec(label);
    const m = ssoKnown.exec(label) ?? (any && !notSso.test(any[1]) ? any : null);
    if (m) {
      choices.push({ kind: 'sso', label, value: m[1].toLowerCase(), selector: xpath(el) });
      continue;
    }
    if (el.closest('form') && (el as PageInput).type === 'submit' && !/send|text me|call me|email me|use/i.test(label)) continue;
    for (const [re, v] of mfa) {
      if (re.test(label) && /send|text|call|email|use|get|authenticator|another|approve|push|try/i.test(label)) {
        choices.push({ kind: 'mfa', label, value: v, selector: cssPath(el) });
        break;
      }
    }
  }
  for (const el of Array.from(document.querySelectorAll('input[type=radio]')) as PageInput[]) {
    if (!visible(el) && !(el.labels && el.labels[0] && visible(el.labels[0]))) continue;
    choices.push({ kind: 'sign_in', label: labelOf(el), value: el.value, selector: cssPath(el) });
  }
  let error: string | undefined;
  for (const el of Array.from(
    document.querySelectorAll(
      '[role=alert], .error, .alert-danger, .alert-error, .error-message, .form-error, .flash-error, [aria-live=assertive], [aria-invalid=true] + .message',
    ),
  )) {
    const t = text(el);
    if (t && visible(el)) {
      error = t.slice(0, 500);
      break;
    }
  }
  return { url: location.href, title: document.title, fields, choices, error, ready: document.readyState === 'complete' };
}

// Sent as source text: transpilers (tsx, vitest) may wrap nested functions in a `__name`
// helper that does not exist inside the page, so the page gets a no-op one.
const DISCOVER_SOURCE = `(() => { const __name = (f) => f; return (${discoverInPage.toString()})(); })()`;

/** Snapshot of the page; navigations in flight make evaluate fail, so it retries briefly. */
export async function snapshot(page: Page, attempts = 20): Promise<PageSnapshot> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      const s = (await page.evaluate(DISCOVER_SOURCE)) as PageSnapshot;
      if (s.ready) return s;
    } catch (err) {
      last = err;
    }
    await page.waitForTimeout(150);
  }
  if (last) throw last;
  return (await page.evaluate(DISCOVER_SOURCE)) as PageSnapshot;
}

/** Whether a snapshot still asks for credentials (identifier, password, code): not logged in. */
export function asksForLogin(s: PageSnapshot): boolean {
  return s.fields.some((f) => f.type === 'password' || f.type === 'code' || f.type === 'totp' || isIdentifier(f));
}

export function isIdentifier(f: RawField): boolean {
  if (f.type === 'email') return true;
  if (f.type !== 'text' && f.type !== 'tel') return false;
  return /user|email|e-mail|login|account|identifier|phone|handle/i.test(`${f.name} ${f.label} ${f.autocomplete ?? ''}`);
}
