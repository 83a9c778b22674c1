import { describe, expect, it } from 'vitest';
import { exportDestination, exportRequestOf, normalizeExport } from './telemetry-export.js';
import { canonicalHeaderName, checkEndpoint, checkHeaders, patchHeaders } from './destination-rules.js';

const bound = { otlp: { destination: 'd1', enabled: true } };

describe('telemetry.export over the current state', () => {
  it('binds, keeps, unbinds and refuses the contradictions', () => {
    expect(normalizeExport({ otlp: { destination: { id: 'd1' } } }, undefined, false)).toEqual(bound);
    expect(normalizeExport(undefined, bound, false)).toBe(bound);
    expect(normalizeExport({ otlp: {} }, bound, false)).toBe(bound);
    expect(normalizeExport({ otlp: { enabled: true } }, bound, false)).toBe(bound);
    expect(normalizeExport({ otlp: { enabled: false } }, bound, false)).toEqual({ otlp: { enabled: false } });
    expect(normalizeExport(null, bound, false)).toEqual({ otlp: { enabled: false } });
    expect(normalizeExport(undefined, bound, true)).toEqual({ otlp: { enabled: false } });
    expect(normalizeExport(undefined, undefined, false)).toBeUndefined();
    expect(() => normalizeExport({ otlp: { destination: { id: 'd1' }, enabled: false } }, undefined, false)).toThrow(/enabled/);
    expect(() => normalizeExport({ otlp: { destination: { id: 'd1' } } }, undefined, true)).toThrow(/capture/);
    expect(() => normalizeExport({ otlp: { enabled: true } }, undefined, false)).toThrow(/destination/);
    expect(exportDestination({ otlp: { enabled: false } })).toBeUndefined();
    expect(exportRequestOf(bound)).toEqual({ otlp: { destination: { id: 'd1' } } });
  });
});

describe('destination rules', () => {
  it('normalizes endpoints and header names; PATCH edits per name', () => {
    expect(checkEndpoint('https://c.example:4318/otlp/')).toBe('https://c.example:4318/otlp');
    expect(() => checkEndpoint('https://c.example/v1/traces')).toThrow(/signal path/);
    expect(() => checkEndpoint('https://user:pw@c.example')).toThrow(/credentials/);
    expect(canonicalHeaderName('x-honeycomb-TEAM')).toBe('X-Honeycomb-Team');
    expect(checkHeaders({ authorization: 'a' })).toEqual({ Authorization: 'a' });
    expect(patchHeaders({ Authorization: 'a', 'X-Key': 'k' }, { AUTHORIZATION: null, 'x-new': 'n', 'X-KEY': 'k2' })).toEqual({ 'X-Key': 'k2', 'X-New': 'n' });
    expect(() => patchHeaders({}, { 'x-a': '1', 'X-A': '2' })).toThrow(/more than once/);
  });
});
