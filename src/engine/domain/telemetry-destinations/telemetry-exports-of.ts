/**
 * Builds the engine's telemetry export service (compose.ts): the destination records over the
 * store and the secrets cipher, the operator's host policy (`--otlp-allowed-hosts` plus the
 * egress deny ranges) and the exports. One case turns export off: the OpenTelemetry exporter adds
 * the process's `OTEL_EXPORTER_OTLP_HEADERS` / `OTEL_EXPORTER_OTLP_LOGS_HEADERS` to every request
 * it sends, which would hand the operator's own collector credentials to tenants' endpoints.
 */
import type { EngineContext } from '../../context.js';
import type { TelemetryService } from '../../runtime/telemetry/telemetry-service.js';
import { otlpHostPolicy } from '../../runtime/telemetry/otlp-host-policy.js';
import { egressPolicyOf } from '../../runtime/proxy-forwarder/egress-policy.js';
import { ENGINE_VERSION } from '../../engine-version.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { TelemetryDestinations } from './telemetry-destinations.js';
import { TelemetryExports } from './telemetry-exports.js';

const LEAKING_ENV = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS'];

export function telemetryExportsOf(ctx: EngineContext, secrets: SecretCipher, telemetry: TelemetryService): TelemetryExports {
  const { config, db, clock, log, changes } = ctx;
  const policy = otlpHostPolicy(config.otlpAllowedHosts, egressPolicyOf(config.egressDeny));
  const leaking = LEAKING_ENV.filter((k) => process.env[k]);
  const disabledReason = leaking.length
    ? `the engine's environment sets ${leaking.join(' and ')}, which the OTLP exporter would send to every destination`
    : undefined;
  if (disabledReason) log.error(`telemetry export is off: ${disabledReason}; unset it to export sessions' telemetry`);
  // Batch interval and one batch's time budget (retries included); tests shorten them.
  const delayMs = Number(config.env.BROWSERDECK_OTLP_EXPORT_DELAY_MS);
  const timeoutMs = Number(config.env.BROWSERDECK_OTLP_EXPORT_TIMEOUT_MS);
  const records = new TelemetryDestinations(db, clock, secrets, changes, (endpoint) => policy.refusal(endpoint));
  return new TelemetryExports(records, telemetry, policy, changes, {
    serviceVersion: ENGINE_VERSION,
    log: { warn: (o, m) => log.warn(o, m), info: (o, m) => log.info(o, m) },
    disabledReason,
    delayMs: delayMs > 0 ? delayMs : undefined,
    timeoutMs: timeoutMs > 0 ? timeoutMs : undefined,
  });
}
