/**
 * The layout check of the console's screens (layout-fit.test.ts, and the desktop-only screens in
 * desktop-app.test.ts): `misfits` runs in the page and lists every visible control (button,
 * input, select, textarea, link, tab) that extends past the window horizontally, past an
 * ancestor that clips or scrolls it horizontally, or past one that clips it vertically without
 * scrolling, or below a window that cannot scroll to it; and a page wider than its window.
 */
export interface Misfit {
  control: string;
  why: string;
}

/** Runs in the page (`page.evaluate(misfits)`): what does not fit, with why. Self-contained: it is serialised into the page. */
export function misfits(): Misfit[] {
  const describe = (el: Element): string => {
    const label = (el.getAttribute('aria-label') ?? (el as HTMLElement).innerText ?? (el as HTMLInputElement).placeholder ?? '')
      .trim()
      .replace(/\s+/g, ' ')
      .slice(0, 40);
    const cls = el.getAttribute('class') ? `.${el.getAttribute('class')!.trim().split(/\s+/).join('.')}` : '';
    return `<${el.tagName.toLowerCase()}${cls}>${label ? ` "${label}"` : ''}`;
  };
  const out: Misfit[] = [];
  const W = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > W + 1)
    out.push({ control: '<html>', why: `the page is ${document.documentElement.scrollWidth}px wide in a ${W}px window` });
  const controls = document.querySelectorAll('button, input:not([type="hidden"]), select, textarea, a[href], [role="tab"]');
  for (const el of controls) {
    const r = el.getBoundingClientRect();
    // Invisible helpers (visually hidden file inputs, a terminal's input catcher) are not controls the operator sees.
    if (r.width <= 2 || r.height <= 2) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || Number(cs.opacity) === 0) continue;
    if (r.left < -1 || r.right > W + 1) {
      out.push({ control: describe(el), why: `spans x ${Math.round(r.left)}–${Math.round(r.right)}, outside the ${W}px window` });
      continue;
    }
    let scrollsY = document.documentElement.scrollHeight > document.documentElement.clientHeight;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ps = getComputedStyle(p);
      const pr = p.getBoundingClientRect();
      if (ps.overflowX !== 'visible') {
        const left = pr.left + p.clientLeft;
        const right = left + p.clientWidth;
        if (r.left < left - 1 || r.right > right + 1) {
          out.push({
            control: describe(el),
            why: `spans x ${Math.round(r.left)}–${Math.round(r.right)}, past ${describe(p)} (x ${Math.round(left)}–${Math.round(right)}, overflow-x: ${ps.overflowX})`,
          });
          break;
        }
      }
      // Vertically a scroll container is fine (its content scrolls); a box that clips without scrolling is not.
      if (ps.overflowY === 'auto' || ps.overflowY === 'scroll') scrollsY = true;
      else if (ps.overflowY === 'hidden' || ps.overflowY === 'clip') {
        const top = pr.top + p.clientTop;
        if (r.top < top - 1 || r.bottom > top + p.clientHeight + 1) {
          out.push({ control: describe(el), why: `cut off vertically by ${describe(p)} (overflow-y: ${ps.overflowY})` });
          break;
        }
      }
    }
    if (!scrollsY && r.bottom > window.innerHeight + 1)
      out.push({ control: describe(el), why: `below the ${window.innerHeight}px window, which cannot scroll to it` });
  }
  return out;
}
