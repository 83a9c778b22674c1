/**
 * A real S3-compatible server on loopback for the audit export tests (s3rver, a devDependency):
 * one bucket in a temp directory. It knows one access key id, `S3RVER` (any other is refused
 * with InvalidAccessKeyId; it does not check v4 signatures). `objects()` reads back what was
 * delivered: every key under a prefix with its gunzipped JSON lines.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import S3rver from 's3rver';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export const S3_KEY = { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' };

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Keys (sorted) and their JSON lines, parsed. */
  objects(prefix?: string): Promise<Array<{ key: string; lines: Record<string, unknown>[] }>>;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'audit-bucket'): Promise<TestS3> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return {
    endpoint,
    bucket,
    async objects(prefix = '') {
      const out: Array<{ key: string; lines: Record<string, unknown>[] }> = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) {
          const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
          const text = gunzipSync(Buffer.from(await got.Body!.transformToByteArray())).toString('utf8');
          out.push({
            key: o.Key!,
            lines: text
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Record<string, unknown>),
          });
        }
        token = page.NextContinuationToken;
      } while (token);
      return out.sort((a, b) => (a.key < b.key ? -1 : 1));
    },
    async close() {
      client.destroy();
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
