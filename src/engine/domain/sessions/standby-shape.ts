/**
 * Which creates a standby browser can serve: those whose options can all be applied to a
 * browser that already runs (viewport of a headless one, start_url, a proxy through the jail's
 * egress socket, telemetry, tags, name, timeout, location over CDP). What must be on the command
 * line or on disk before Chromium starts (extensions, a profile, kiosk, GPU, chrome_policy, a
 * proxy's `ca_bundle`) — or
 * a proxy without the jail, which needs `--proxy-server` — launches cold. A shape is what differs
 * between standby browsers: headless or headful (with its X screen's size), stealth or not.
 */
import type { CreatePlan } from './session-create.js';
import { DEFAULT_VIEWPORT, type Viewport } from './session-options.js';

export interface StandbyShape {
  headless: boolean;
  stealth: boolean;
  /** Headful: the X screen (fixed at launch). Headless: the launch size, resized on claim. */
  viewport: Viewport;
}

/** The shape kept ready without any demand: a plain headless browser. */
export const DEFAULT_SHAPE: StandbyShape = { headless: true, stealth: false, viewport: DEFAULT_VIEWPORT };

export function shapeKey(s: StandbyShape): string {
  const base = `${s.headless ? 'headless' : 'headful'}${s.stealth ? '+stealth' : ''}`;
  return s.headless ? base : `${base}@${s.viewport.width}x${s.viewport.height}`;
}

/** The standby shape that can serve this create, or why it needs a cold launch. */
export function standbyShapeOf(plan: CreatePlan, jailed: boolean): { shape: StandbyShape } | { cold: string } {
  const o = plan.options;
  if (plan.extensions.length) return { cold: 'extensions' };
  if (plan.profile) return { cold: 'profile' };
  if (o.kiosk_mode) return { cold: 'kiosk_mode' };
  if (o.gpu) return { cold: 'gpu' };
  if (o.chrome_policy && Object.keys(o.chrome_policy).length) return { cold: 'chrome_policy' };
  if (plan.proxy && !jailed) return { cold: 'proxy without the jail' };
  // Trusted CAs come in the jail's managed policy, which is mounted at launch only.
  if (plan.proxy?.caCertificates?.length) return { cold: 'proxy ca_bundle' };
  // Anything else a plan adds to the command line needs a launch of its own.
  if (plan.extraArgs.length && !(plan.proxy && jailed)) return { cold: 'launch flags' };
  const viewport = o.headless ? DEFAULT_VIEWPORT : { width: o.viewport.width, height: o.viewport.height };
  return { shape: { headless: o.headless, stealth: o.stealth, viewport } };
}
