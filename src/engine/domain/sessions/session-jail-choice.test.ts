/**
 * The one place a create decides the jail: with bubblewrap the browser is jailed with what it
 * asked for; without, what only a jail can give is refused (422) and an unjailed browser runs.
 */
import { describe, expect, it } from 'vitest';
import { jailFor } from './session-jail-choice.js';
import type { EngineContext } from '../../context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';

const ctx = { config: { dataDir: '/data' }, tenantEgress: undefined } as unknown as Pick<EngineContext, 'config' | 'tenantEgress'>;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof DomainError ? err.code : String(err);
  }
  return undefined;
}

describe('jailFor', () => {
  it('jails with bubblewrap: the data dir hidden, the asks carried, an empty policy dropped', () => {
    const j = jailFor('/usr/bin/bwrap', ctx, { chromePolicy: {}, caCertificates: ['AAA='], allowedHosts: ['example.com'] });
    expect(j).toMatchObject({ bwrap: '/usr/bin/bwrap', hide: ['/data'], caCertificates: ['AAA='], allowedHosts: ['example.com'] });
    expect(j?.chromePolicy).toBeUndefined();
  });

  it('without bubblewrap runs on the host, and refuses what only a jail can give', () => {
    expect(jailFor(null, ctx)).toBeUndefined();
    expect(codeOf(() => jailFor(null, ctx, { caCertificates: ['AAA='] }))).toBe('ca_bundle_unsupported');
    expect(codeOf(() => jailFor(null, ctx, { chromePolicy: { HomepageLocation: 'x' } }))).toBe('chrome_policy_unsupported');
    expect(codeOf(() => jailFor(null, ctx, { allowedHosts: ['example.com'] }))).toBeDefined();
  });
});
