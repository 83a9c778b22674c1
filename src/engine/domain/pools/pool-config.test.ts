import { describe, expect, it } from 'vitest';
import { configFromCreate, configWithUpdate, sessionBodyOf } from './pool-config.js';

describe('a pool PATCH of telemetry', () => {
  // What the route's preHandler leaves after resolving `{name}`: the destination by id.
  const bound = () =>
    configFromCreate({
      size: 1,
      telemetry: {
        browser: { console: { enabled: true }, control: { cdp: { excluded_methods: ['Page.navigate'] } } },
        export: { otlp: { destination: { id: 'dst1' } } },
      },
    });

  it('merges like a session PATCH: omitted categories, excluded methods and the export binding stay', () => {
    const c = configWithUpdate(bound(), { telemetry: { browser: { network: { enabled: true } } } });
    expect(c.telemetry?.export).toEqual({ otlp: { destination: 'dst1', enabled: true } });
    expect(c.telemetry?.browser?.console).toEqual({ enabled: true });
    expect(c.telemetry?.browser?.network).toEqual({ enabled: true });
    expect(c.telemetry?.browser?.control?.cdp?.excluded_methods).toEqual(['Page.navigate']);
    // Every browser the pool launches from now on still exports there.
    expect(sessionBodyOf(c).telemetry?.export).toEqual({ otlp: { destination: { id: 'dst1' } } });
  });

  it('unbinds only when asked', () => {
    expect(configWithUpdate(bound(), { telemetry: { export: null } }).telemetry?.export).toEqual({ otlp: { enabled: false } });
    expect(configWithUpdate(bound(), { telemetry: { export: { otlp: { enabled: false } } } }).telemetry?.export).toEqual({ otlp: { enabled: false } });
    const off = configWithUpdate(bound(), { telemetry: null });
    expect(off.telemetry?.export).toEqual({ otlp: { enabled: false } });
    expect(Object.values(off.telemetry?.browser ?? {}).filter((c) => c.enabled)).toEqual([]);
    expect(sessionBodyOf(off).telemetry?.export).toEqual({ otlp: { enabled: false } });
    // A config without telemetry PATCHed gets the defaults, as before.
    expect(configWithUpdate(configFromCreate({ size: 1 }), { telemetry: { browser: { page: { enabled: true } } } }).telemetry?.browser?.console).toEqual({
      enabled: false,
    });
  });
});
