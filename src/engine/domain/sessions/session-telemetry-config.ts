/**
 * A session's telemetry switches (`telemetry` on create, PATCH, pools; Kernel §6.1): every
 * category on or off, layered over the current config on PATCH, plus `control.cdp.excluded_methods`
 * — the `cdp_command` methods left out of the stream. The list is merged apart from `enabled`:
 * omitted keeps the current one, `[]` reports every method again (so a PATCH that only turns
 * control off and on again keeps its exclusions).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { TelemetryExportRequest } from '../../../shared/wire/telemetry-destinations.js';
import { normalizeExport, type TelemetryExportConfig } from '../telemetry-destinations/telemetry-export.js';
import { DEFAULT_ON_CATEGORIES, TELEMETRY_CATEGORIES, type TelemetryCategoryName } from '../../../shared/wire/telemetry-categories.js';

export { TELEMETRY_CATEGORIES };

export type TelemetryConfig = {
  /** `telemetry.export`: the OTLP destination this session exports to (telemetry-destinations/telemetry-export.ts). */
  export?: TelemetryExportConfig;
  browser: Record<TelemetryCategoryName, { enabled: boolean }> & {
    control: { enabled: boolean; cdp?: { excluded_methods: string[] } };
    network: { enabled: boolean; bodies?: boolean };
  };
};
export interface TelemetryRequest {
  enabled?: boolean;
  export?: TelemetryExportRequest;
  browser?: Partial<Record<string, { enabled?: boolean; cdp?: { excluded_methods?: string[] }; bodies?: boolean }>>;
}

export function normalizeTelemetry(t: TelemetryRequest | null | undefined, base?: TelemetryConfig | null): TelemetryConfig {
  if (t && t.enabled === false && t.browser) throw DomainError.invalidField('telemetry', 'enabled: false cannot be combined with browser');
  const out = {} as TelemetryConfig['browser'];
  for (const c of TELEMETRY_CATEGORIES) {
    // A config stored before a category existed (`platform`) has that category at its default.
    let on = base?.browser[c]?.enabled ?? DEFAULT_ON_CATEGORIES.includes(c);
    if (t === null || t?.enabled === false) on = false;
    else if (t?.enabled === true && !base) on = DEFAULT_ON_CATEGORIES.includes(c);
    const asked = t?.browser?.[c]?.enabled;
    if (asked !== undefined) on = asked;
    out[c] = { enabled: on };
  }
  const excluded = t?.browser?.control?.cdp?.excluded_methods ?? base?.browser.control.cdp?.excluded_methods ?? [];
  out.control.cdp = { excluded_methods: [...new Set(excluded)] };
  // `network.bodies` (engine option: response bodies for the HAR) is remembered like the list above.
  if (t !== null && t?.enabled !== false && (t?.browser?.network?.bodies ?? base?.browser.network.bodies)) out.network.bodies = true;
  if (t?.browser)
    for (const k of Object.keys(t.browser))
      if (!(TELEMETRY_CATEGORIES as readonly string[]).includes(k)) throw DomainError.invalidField(`telemetry.browser.${k}`, 'is not a telemetry category');
  const exported = normalizeExport(t?.export, base?.export, t === null || t?.enabled === false);
  return exported ? { browser: out, export: exported } : { browser: out };
}
