import { describe, expect, it } from 'vitest';
import { committableEnd, compactTime, encodeExportCursor, objectKey, retryDelayMs, windowEndAfter, windowStartOf } from './export-window.js';
import { checkBucket, checkPrefix, checkRegion, checkRoleArn } from './export-fields.js';

const t = (iso: string) => Date.parse(iso);
const W = 300_000;

describe('audit export windows', () => {
  it('cuts event time into fixed windows that commit only after the hold', () => {
    expect(windowStartOf(t('2026-11-26T05:37:12.345Z'), W)).toBe(t('2026-11-26T05:35:00.000Z'));
    expect(windowEndAfter(t('2026-11-26T05:37:12.345Z'), W)).toBe(t('2026-11-26T05:40:00.000Z'));
    // A cursor on a boundary belongs to the window that starts there.
    expect(windowEndAfter(t('2026-11-26T05:40:00.000Z'), W)).toBe(t('2026-11-26T05:45:00.000Z'));
    // Held 10 minutes: at 05:50:30 only windows ending by 05:40 are final.
    expect(committableEnd(t('2026-11-26T05:50:30.000Z'), { windowMs: W, holdMs: 600_000 })).toBe(t('2026-11-26T05:40:00.000Z'));
  });

  it('names objects in the Hive layout of the spec, by window start and chunk', () => {
    const key = objectKey({ prefix: 'audit/x', destinationId: 'd1', orgId: 'o1', windowStartMs: t('2026-11-26T23:55:00.000Z'), chunk: 3 });
    expect(key).toBe('audit/x/destination_id=d1/org_id=o1/date=2026-11-26/hour=23/20261126T235500Z-0003.jsonl.gz');
    expect(objectKey({ prefix: '', destinationId: 'd', orgId: 'o', windowStartMs: t('2026-01-02T03:04:05.000Z'), chunk: 0 })).toBe(
      'destination_id=d/org_id=o/date=2026-01-02/hour=03/20260102T030405Z-0000.jsonl.gz',
    );
    expect(compactTime(t('2026-11-26T05:35:00.000Z'))).toBe('20261126T053500Z');
  });

  it('reports a versioned, opaque cursor and backs off up to an hour', () => {
    const c = encodeExportCursor('2026-11-26T05:40:00.000Z');
    expect(c).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(c).not.toContain('2026');
    expect(retryDelayMs(1)).toBe(30_000);
    expect(retryDelayMs(2)).toBe(60_000);
    expect(retryDelayMs(50)).toBe(3600_000);
  });
});

describe('audit export destination fields', () => {
  it('holds bucket and region to S3 syntax (they end up in the request host)', () => {
    expect(checkBucket('my-audit.logs')).toBe('my-audit.logs');
    for (const bad of ['ab', 'Upper', 'a..b', '-abc', 'abc-', '192.168.1.1', 'evil.com/x', 'a'.repeat(64), 'x:80']) {
      expect(() => checkBucket(bad), bad).toThrow(/bucket/);
    }
    expect(checkRegion('eu-central-1')).toBe('eu-central-1');
    for (const bad of ['', 'US-EAST-1', 'x.evil.com', 'us east']) expect(() => checkRegion(bad), bad).toThrow(/region/);
  });

  it('normalizes the prefix and refuses traversal-like segments', () => {
    expect(checkPrefix('/logs/audit/')).toBe('logs/audit');
    expect(checkPrefix('')).toBe('');
    for (const bad of ['a//b', 'a/../b', './a', 'a\\b', 'a\nb']) expect(() => checkPrefix(bad), bad).toThrow(/prefix/);
  });

  it('accepts role ARNs of AWS and of S3-compatible partitions only', () => {
    expect(checkRoleArn('arn:aws:iam::123456789012:role/audit-writer')).toBeTruthy();
    expect(checkRoleArn('arn:minio:iam:::role/abc')).toBeTruthy();
    for (const bad of ['', 'role/x', 'arn:aws', 'arn:aws:iam::1:role/ x']) expect(() => checkRoleArn(bad), bad).toThrow(/role_arn/);
  });
});
