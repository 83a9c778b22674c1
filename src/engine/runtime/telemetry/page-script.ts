/**
 * The script the collector runs in every page, in an isolated world (`bd-telemetry`) that the
 * page's own scripts cannot see: it reports clicks, keys and settled scrolls (interaction) and
 * captchas it recognises (reCAPTCHA, hCaptcha, Turnstile, GeeTest widgets, frames or scripts)
 * and when their response token appears (solved). It talks only through a CDP binding that
 * exists only in that world. Keys typed into password fields are reported without the key.
 */

export const TELEMETRY_WORLD = 'bd-telemetry';
export const TELEMETRY_BINDING = '__bdTelemetry';

const SOURCE = `(() => {
  if (window.__bdTelemetryInstalled) return;
  window.__bdTelemetryInstalled = true;
  const send = (type, data) => { try { ${TELEMETRY_BINDING}(JSON.stringify({ type, data })); } catch (_) {} };
  const cssId = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s);
  const selector = (el) => {
    const parts = [];
    for (let n = el, i = 0; n && n.nodeType === 1 && i < 5; n = n.parentElement, i++) {
      if (n.id) { parts.unshift('#' + cssId(n.id)); break; }
      let p = n.tagName.toLowerCase();
      const cls = [...n.classList].slice(0, 2).map((c) => '.' + cssId(c)).join('');
      p += cls;
      const sib = n.parentElement ? [...n.parentElement.children].filter((c) => c.tagName === n.tagName) : [];
      if (sib.length > 1) p += ':nth-of-type(' + (sib.indexOf(n) + 1) + ')';
      parts.unshift(p);
    }
    return parts.join(' > ');
  };
  const describe = (t) => (t && t.nodeType === 1 ? { tag: t.tagName.toLowerCase(), selector: selector(t) } : {});
  document.addEventListener('click', (e) => {
    const t = e.target, d = describe(t);
    const text = t && t.nodeType === 1 ? (t.innerText || t.value || '').trim().slice(0, 200) : undefined;
    send('interaction_click', { ...d, text, x: Math.round(e.clientX), y: Math.round(e.clientY) });
  }, true);
  document.addEventListener('keydown', (e) => {
    const t = e.target, secret = t && t.tagName === 'INPUT' && (t.type || '').toLowerCase() === 'password';
    send('interaction_key', { ...describe(t), key: secret && e.key.length === 1 ? undefined : e.key });
  }, true);
  let from = null, scrollTimer = 0, scrollTarget = null;
  const pos = (t) => (t && t.nodeType === 1 ? { x: t.scrollLeft, y: t.scrollTop } : { x: window.scrollX, y: window.scrollY });
  let last = new Map();
  document.addEventListener('scroll', (e) => {
    const t = e.target === document ? null : e.target;
    if (!from) { const prev = last.get(t) || { x: 0, y: 0 }; from = prev; scrollTarget = t; }
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(() => {
      const to = pos(scrollTarget);
      last.set(scrollTarget, to);
      send('interaction_scroll_settled', { from_x: Math.round(from.x), from_y: Math.round(from.y), to_x: Math.round(to.x), to_y: Math.round(to.y), target_selector: scrollTarget ? selector(scrollTarget) : 'document' });
      from = null;
    }, 150);
  }, true);
  const KINDS = [
    ['recaptcha_v2', 'iframe[src*="/recaptcha/api2/anchor"],iframe[src*="/recaptcha/enterprise/anchor"],.g-recaptcha,script[src*="/recaptcha/api.js"],script[src*="/recaptcha/enterprise.js"]', 'textarea[name="g-recaptcha-response"]'],
    ['hcaptcha', 'iframe[src*="hcaptcha.com"],.h-captcha,script[src*="hcaptcha.com/1/api.js"]', 'textarea[name="h-captcha-response"],[name="h-captcha-response"]'],
    ['turnstile', 'iframe[src*="challenges.cloudflare.com"],.cf-turnstile,script[src*="challenges.cloudflare.com/turnstile"]', 'input[name="cf-turnstile-response"]'],
    ['geetest', '.geetest_holder,.geetest_panel,script[src*="geetest.com"],script[src*="gt.js"]', 'input[name="geetest_validate"]'],
  ];
  let found = null, solved = false;
  const scan = () => {
    if (solved) return;
    if (!found) {
      for (const [kind, sel, token] of KINDS) if (document.querySelector(sel)) {
        const v3 = kind === 'recaptcha_v2' && document.querySelector('script[src*="render="]') && !document.querySelector('.g-recaptcha,iframe[src*="/anchor"]');
        found = { kind: v3 ? 'recaptcha_v3' : kind, token };
        send('captcha_detected', { captcha_type: found.kind, website_host: location.host, website_path: location.pathname });
        break;
      }
    }
    if (found) for (const el of document.querySelectorAll(found.token)) if ((el.value || '').length > 0) {
      solved = true;
      send('captcha_solved', { captcha_type: found.kind });
      return;
    }
  };
  const start = () => {
    scan();
    let queued = false;
    new MutationObserver(() => { if (found || queued) return; queued = true; setTimeout(() => { queued = false; scan(); }, 200); }).observe(document.documentElement, { childList: true, subtree: true });
    setInterval(() => { if (found) scan(); }, 1000);
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start, { once: true });
})();`;

export function pageScriptSource(): string {
  return SOURCE;
}
