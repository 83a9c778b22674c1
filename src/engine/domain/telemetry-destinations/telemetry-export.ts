/**
 * A session's (or pool's) `telemetry.export` (Kernel §2.1, §2.2): the request over the current
 * state, as stored in its telemetry config and reported back. Stored only as
 * `{otlp: {destination: <id>, enabled: true}}` while exporting, `{otlp: {enabled: false}}` once
 * turned off, so a bound destination is found by its id in the stored JSON
 * (telemetry-destinations.ts, the 409 on delete). A destination named in a request has been
 * resolved to its id before this runs (`resolveExportDestination`).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { TelemetryExport, TelemetryExportRequest } from '../../../shared/wire/telemetry-destinations.js';

export type TelemetryExportConfig = TelemetryExport;

/**
 * `req` over `base`: omitted keeps it, `null` removes it, a destination binds (implies enabled;
 * `enabled:false` with one is refused), `enabled:false` unbinds. `captureOff`: the same request
 * turns capture off (`telemetry: null` or `enabled:false`), which ends an export too and cannot
 * be combined with starting one.
 */
export function normalizeExport(
  req: TelemetryExportRequest | undefined,
  base: TelemetryExportConfig | undefined,
  captureOff: boolean,
): TelemetryExportConfig | undefined {
  const o = req?.otlp;
  if (o?.destination) {
    if (o.enabled === false) throw DomainError.invalidField('telemetry.export.otlp.enabled', 'false cannot be combined with a destination');
    if (captureOff) throw DomainError.invalidField('telemetry.export', 'exporting needs telemetry capture enabled');
    const id = o.destination.id;
    if (!id || o.destination.name !== undefined) throw DomainError.invalidField('telemetry.export.otlp.destination', 'give exactly one of id or name');
    return { otlp: { destination: id, enabled: true } };
  }
  if (captureOff) return base?.otlp?.destination ? { otlp: { enabled: false } } : base;
  if (req === undefined || (req !== null && o === undefined)) return base;
  if (req === null || o?.enabled === false) return base ? { otlp: { enabled: false } } : undefined;
  // `{otlp: {}}` changes nothing; `{otlp: {enabled: true}}` keeps a bound destination, else there is nothing to enable.
  if (o?.enabled === undefined || base?.otlp?.destination) return base;
  throw DomainError.invalidField('telemetry.export.otlp.destination', 'is required to export');
}

/** The destination id a config exports to now, if any. */
export function exportDestination(c: TelemetryExportConfig | undefined): string | undefined {
  return c?.otlp?.enabled !== false ? c?.otlp?.destination : undefined;
}

/** A stored config as a request again (a pool's config → the create of each of its browsers). */
export function exportRequestOf(c: TelemetryExportConfig): TelemetryExportRequest {
  const d = exportDestination(c);
  return d ? { otlp: { destination: { id: d } } } : { otlp: { enabled: false } };
}
