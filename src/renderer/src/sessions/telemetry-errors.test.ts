import { describe, expect, it } from 'vitest';
import { ERROR_EVENT_TYPES, isErrorEvent } from './telemetry-errors.js';

describe('telemetry errors', () => {
  it('counts console errors, failed loads, proxy failures and crashes', () => {
    for (const type of ['console_error', 'network_loading_failed', 'proxy_error', 'page_crashed', 'service_crashed'])
      expect(isErrorEvent({ type, data: {} }), type).toBe(true);
  });

  it('counts a response only when its status is 4xx or 5xx', () => {
    expect(isErrorEvent({ type: 'network_response', data: { status: 404 } })).toBe(true);
    expect(isErrorEvent({ type: 'network_response', data: { status: 503 } })).toBe(true);
    expect(isErrorEvent({ type: 'network_response', data: { status: 200 } })).toBe(false);
    expect(isErrorEvent({ type: 'network_response', data: { status: 302 } })).toBe(false);
    expect(isErrorEvent({ type: 'network_response', data: {} })).toBe(false);
  });

  it('leaves ordinary events alone', () => {
    for (const type of ['console_log', 'network_request', 'page_navigation', 'api_call'])
      expect(isErrorEvent({ type, data: { status: 500 } }), type).toBe(false);
  });

  it('asks the engine for every type it can count', () => {
    for (const type of ERROR_EVENT_TYPES) expect(isErrorEvent({ type, data: { status: 500 } }), type).toBe(true);
  });
});
