import { describe, expect, it } from 'vitest';
import { resolveConfig } from './config.js';
import { CONFIG_OPTIONS, engineOptionsFromFlags, parseArgsOptions } from './config-options.js';

/** The value at a dotted option path of a config or options object. */
function at(obj: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

const SAMPLE = { number: '16', list: '10.9.0.0/16', boolean: '1', string: 'sample-1' } as const;
const EXPECTED = { number: 16, list: ['10.9.0.0/16'], boolean: true } as const;

describe('the configuration table (config-options.ts)', () => {
  it("names the variable resolveConfig reads for each setting: setting it changes that row's option", () => {
    for (const o of CONFIG_OPTIONS.filter((c) => c.env)) {
      const value = at(resolveConfig({ env: { [o.env!]: SAMPLE[o.kind] } }), o.option);
      if (o.kind === 'string') expect(String(value), o.env).toContain(SAMPLE.string);
      else expect(value, o.env).toEqual(EXPECTED[o.kind]);
    }
  });

  it('states the default resolveConfig applies where the table gives it literally', () => {
    const config = resolveConfig({ env: {} });
    const literal = CONFIG_OPTIONS.filter((o) => o.default !== undefined);
    expect(literal.length).toBeGreaterThan(10);
    for (const o of literal) expect(at(config, o.option), o.option).toEqual(o.default);
  });

  it('turns flags into the options createEngine takes, leaving absent ones to the environment', () => {
    expect(parseArgsOptions()).toMatchObject({ port: { type: 'string' }, 'egress-allow-loopback': { type: 'boolean' } });
    expect(
      engineOptionsFromFlags({
        port: '0',
        'egress-deny': ' 10.0.0.0/8, ,fd00::/8',
        'egress-allow-loopback': true,
        'exec-per-session': '3',
        'jail-uid-base': 'x',
      }),
    ).toEqual({ port: 0, egressDeny: ['10.0.0.0/8', 'fd00::/8'], egressLoopback: true, execLimits: { perSession: 3 }, jailUids: { base: NaN } });
    expect(engineOptionsFromFlags({})).toEqual({});
  });

  it('has one row per flag and per variable', () => {
    const flags = CONFIG_OPTIONS.flatMap((o) => (o.flag ? [o.flag] : []));
    const envs = CONFIG_OPTIONS.flatMap((o) => (o.env ? [o.env] : []));
    expect(new Set(flags).size).toBe(flags.length);
    expect(new Set(envs).size).toBe(envs.length);
  });
});
