/**
 * The checks of an audit export destination's fields (spec §13), each a 400 naming the field.
 * Bucket and region also end up in the S3 request's host name (virtual-hosted style on AWS)
 * or path, so they are held to S3's own syntax: a tenant cannot steer the engine to another
 * host through them. The prefix is normalized without leading or trailing slashes.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

export function checkType(type: string): 's3' {
  if (type !== 's3') throw DomainError.invalidField('type', `must be 's3' (got '${type}')`);
  return type;
}

export function checkFormat(format: string): 'jsonl.gz' {
  if (format !== 'jsonl.gz') throw DomainError.invalidField('format', `must be 'jsonl.gz' (got '${format}')`);
  return format;
}

export function checkStatus(status: string): 'active' | 'paused' {
  if (status !== 'active' && status !== 'paused') throw DomainError.invalidField('status', `must be 'active' or 'paused' (got '${status}')`);
  return status;
}

/** S3 bucket naming rules: 3–63 of a-z 0-9 . -, starting and ending alphanumeric, no `..`, not an IPv4 address. */
export function checkBucket(bucket: string): string {
  const ok = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) && !bucket.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(bucket);
  if (!ok) throw DomainError.invalidField('bucket', 'must be an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)');
  return bucket;
}

export function checkRegion(region: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(region)) throw DomainError.invalidField('region', 'must be a region name such as us-east-1');
  return region;
}

/** `arn:<partition>:<service>:<region>:<account>:<resource>`; S3-compatible stores use their own partitions. */
export function checkRoleArn(arn: string): string {
  if (!/^arn:[a-z0-9-]+:[a-z0-9-]+:[a-z0-9-]*:[0-9a-z-]*:\S{1,1024}$/.test(arn)) {
    throw DomainError.invalidField('role_arn', 'must be a role ARN (arn:aws:iam::<account>:role/<name>)');
  }
  return arn;
}

/** Printable, without `..` segments; slashes at either end are dropped (keys join with one `/`). */
export function checkPrefix(prefix: string): string {
  const p = prefix.replace(/^\/+|\/+$/g, '');
  if (p === '') return p;
  if ([...p].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\x7f' || ch === '\\'))
    throw DomainError.invalidField('prefix', 'must not contain control characters or backslashes');
  if (p.split('/').some((s) => s === '' || s === '.' || s === '..')) throw DomainError.invalidField('prefix', "must not contain empty, '.' or '..' segments");
  return p;
}

/** A KMS key id, alias or ARN; '' removes it (PATCH). */
export function checkKmsKeyId(id: string): string | null {
  if (id === '') return null;
  if (!/^[A-Za-z0-9:/_.+=@-]{1,2048}$/.test(id)) throw DomainError.invalidField('kms_key_id', 'must be a KMS key id, alias or ARN');
  return id;
}

export interface StaticCredentials {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
}

export function checkCredentials(c: StaticCredentials): StaticCredentials {
  if (!/^[\x21-\x7e]+$/.test(c.access_key_id)) throw DomainError.invalidField('credentials.access_key_id', 'must be printable ASCII without spaces');
  if (!/^[\x21-\x7e]+$/.test(c.secret_access_key)) throw DomainError.invalidField('credentials.secret_access_key', 'must be printable ASCII without spaces');
  if (c.session_token !== undefined && !/^[\x21-\x7e]*$/.test(c.session_token))
    throw DomainError.invalidField('credentials.session_token', 'must be printable ASCII');
  return c.session_token ? c : { access_key_id: c.access_key_id, secret_access_key: c.secret_access_key };
}
