/**
 * How the engine reaches a destination's bucket: the credentials (the destination's own static
 * ones, else the operator's, else the AWS SDK's default chain), the role step (STS AssumeRole
 * of `role_arn` with the destination's `external_id`, only where the operator configured an
 * STS endpoint), then PutObject with the same metadata for deliveries and the `/test` probe
 * (content type, the destination's SSE-KMS key). Each `openDelivery` makes its own clients;
 * `close()` releases their sockets.
 */
import type { PutObjectCommandInput } from '@aws-sdk/client-s3';
import type { AuditExportSettings } from './export-settings.js';
import type { StaticCredentials } from './export-fields.js';

export interface DeliveryTarget {
  id: string;
  orgId: string;
  bucket: string;
  region: string;
  roleArn: string;
  externalId: string;
  kmsKeyId: string | null;
  credentials?: StaticCredentials;
}

export interface Delivery {
  put(key: string, body: Buffer, signal?: AbortSignal): Promise<void>;
  remove(key: string, signal?: AbortSignal): Promise<void>;
  close(): void;
}

/** The role step failed (stage `assume_role` of `/test`). */
export class AssumeRoleError extends Error {}

const REQUEST_HANDLER = { requestTimeout: 60_000, connectionTimeout: 10_000 };

function sdkCredentials(c: StaticCredentials | undefined) {
  return c ? { accessKeyId: c.access_key_id, secretAccessKey: c.secret_access_key, sessionToken: c.session_token } : undefined;
}

/** Assumes the role when STS is configured, and answers a Delivery into the destination's bucket. */
export async function openDelivery(settings: AuditExportSettings, t: DeliveryTarget, signal?: AbortSignal): Promise<Delivery> {
  let credentials = sdkCredentials(t.credentials ?? settings.credentials);
  // The AWS SDK is loaded by the first export: most engines never export, and it is heavy to import.
  const { S3Client, PutObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  if (settings.stsEndpoint) {
    const { STSClient, AssumeRoleCommand } = await import('@aws-sdk/client-sts');
    const sts = new STSClient({ region: t.region, endpoint: settings.stsEndpoint, credentials, requestHandler: REQUEST_HANDLER, maxAttempts: 2 });
    try {
      const out = await sts.send(
        new AssumeRoleCommand({
          RoleArn: t.roleArn,
          ExternalId: t.externalId,
          RoleSessionName: `browserdeck-audit-${t.id}`.slice(0, 64),
          DurationSeconds: 900,
        }),
        { abortSignal: signal },
      );
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('AssumeRole answered no credentials');
      credentials = { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken };
    } catch (err) {
      throw new AssumeRoleError(errorText(err));
    } finally {
      sts.destroy();
    }
  }
  const s3 = new S3Client({
    region: t.region,
    endpoint: settings.s3Endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials,
    requestHandler: REQUEST_HANDLER,
  });
  const common: Omit<PutObjectCommandInput, 'Key' | 'Body'> = {
    Bucket: t.bucket,
    ContentType: 'application/gzip',
    Metadata: { 'destination-id': t.id, 'org-id': t.orgId },
    ...(t.kmsKeyId ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: t.kmsKeyId } : {}),
  };
  return {
    async put(key, body, sig) {
      await s3.send(new PutObjectCommand({ ...common, Key: key, Body: body }), { abortSignal: sig });
    },
    async remove(key, sig) {
      await s3.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key }), { abortSignal: sig });
    },
    close: () => s3.destroy(),
  };
}

/** A failure as stored in `last_error` and answered by `/test`: the service's code and message, clipped. */
export function errorText(err: unknown): string {
  const e = err as { name?: string; message?: string; Code?: string };
  const code = e?.Code ?? e?.name;
  const msg = (e?.message ?? String(err)).replace(/\s+/g, ' ').trim();
  const text = code && code !== 'Error' && !msg.startsWith(code) ? `${code}: ${msg}` : msg;
  return text.length > 500 ? text.slice(0, 500) : text;
}
