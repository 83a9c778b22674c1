/**
 * Which telemetry events are errors, the one rule the Telemetry pane's highlight and "errors
 * only" filter, the tab's count and the sessions list's count share: a console error, a request
 * answered 4xx/5xx, a failed load (or the egress proxy's failure answer), a crash.
 */
import type { TelemetryEvent } from '../../../shared/wire/session-telemetry';

/** The event types an error can have: what the count asks `telemetry/events` for. */
export const ERROR_EVENT_TYPES = ['console_error', 'network_response', 'network_loading_failed', 'proxy_error', 'page_crashed', 'service_crashed'] as const;

export function isErrorEvent(e: Pick<TelemetryEvent, 'type' | 'data'>): boolean {
  if (e.type === 'network_response') {
    const status = e.data?.status;
    return typeof status === 'number' && status >= 400;
  }
  return e.type === 'console_error' || e.type === 'network_loading_failed' || e.type === 'proxy_error' || e.type.includes('crash');
}
