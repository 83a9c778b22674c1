import { describe, expect, it } from 'vitest';
import { managedPolicyOf } from './managed-policy.js';

describe('managedPolicyOf', () => {
  it("is the session's chrome_policy, or nothing, when no proxy brings a CA", () => {
    expect(managedPolicyOf({})).toBeUndefined();
    expect(managedPolicyOf({ chromePolicy: { URLBlocklist: ['a.example'] }, caCertificates: [] })).toEqual({ URLBlocklist: ['a.example'] });
  });

  it("adds the proxies' CAs as CACertificates, after any the session sets itself", () => {
    expect(managedPolicyOf({ caCertificates: ['AAA', 'BBB'] })).toEqual({ CACertificates: ['AAA', 'BBB'] });
    expect(managedPolicyOf({ chromePolicy: { CACertificates: ['OWN'], URLBlocklist: [] }, caCertificates: ['AAA'] })).toEqual({
      CACertificates: ['OWN', 'AAA'],
      URLBlocklist: [],
    });
    // A malformed value of the session's own is replaced rather than crashing the launch.
    expect(managedPolicyOf({ chromePolicy: { CACertificates: 'x' }, caCertificates: ['AAA'] })).toEqual({ CACertificates: ['AAA'] });
  });
});
