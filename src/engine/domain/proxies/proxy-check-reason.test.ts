import { describe, expect, it } from 'vitest';
import { checkReason } from './proxy-check-reason.js';

describe('checkReason', () => {
  it('keeps a plain reason on one line', () => {
    expect(checkReason('connect ECONNREFUSED\n 10.0.0.1:3128', {})).toBe('connect ECONNREFUSED 10.0.0.1:3128');
  });
  it('never repeats the password, raw or URL-encoded', () => {
    expect(checkReason('bad auth for user:s3cr3t/x@host', { password: 's3cr3t/x' })).toBe('bad auth for user:***@host');
    expect(checkReason('GET http://u:s3cr3t%2Fx@h failed', { password: 's3cr3t/x' })).toBe('GET http://u:***@h failed');
  });
  it('says something when there is no reason and cuts a long one', () => {
    expect(checkReason(undefined, {})).toBe('the check failed');
    expect(checkReason('x'.repeat(1000), {})).toHaveLength(300);
  });
});
