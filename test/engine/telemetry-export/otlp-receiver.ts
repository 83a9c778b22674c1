/**
 * A real OTLP/HTTP logs receiver for tests: a local server taking `POST /v1/logs` (OTLP JSON, as
 * the OpenTelemetry exporter sends it), decoding each export request into flat records (resource
 * attributes, event name, attributes, body) and keeping the headers each request carried. It can
 * be told to answer the next requests with an error status (retries, health).
 */
import type http from 'node:http';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  kvlistValue?: { values: KeyValue[] };
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedRecord {
  resource: Record<string, unknown>;
  eventName?: string;
  attributes: Record<string, unknown>;
  body: unknown;
  timeUnixNano?: string;
}

export interface OtlpReceiver extends LocalServer {
  records: ReceivedRecord[];
  /** Headers of every accepted or refused request, in order. */
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; status: number }>;
  /** Answer the next `n` requests with `status` (then 200 again). */
  failNext(n: number, status: number): void;
  openConnections(): Promise<number>;
}

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.kvlistValue) return mapOf(v.kvlistValue.values);
  if (v.arrayValue) return v.arrayValue.values.map(valueOf);
  return undefined;
}

function mapOf(kvs: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const records: ReceivedRecord[] = [];
  const requests: OtlpReceiver['requests'] = [];
  let failing = { n: 0, status: 200 };
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = failing.n > 0 ? (failing.n--, failing.status) : req.url === '/v1/logs' && req.method === 'POST' ? 200 : 404;
      requests.push({ path: req.url ?? '', headers: req.headers, status });
      if (status === 200) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceLogs: Array<{
            resource?: { attributes?: KeyValue[] };
            scopeLogs: Array<{ logRecords: Array<{ eventName?: string; attributes?: KeyValue[]; body?: AnyValue; timeUnixNano?: string }> }>;
          }>;
        };
        for (const rl of body.resourceLogs)
          for (const sl of rl.scopeLogs)
            for (const r of sl.logRecords)
              records.push({
                resource: mapOf(rl.resource?.attributes),
                eventName: r.eventName,
                attributes: mapOf(r.attributes),
                body: valueOf(r.body),
                timeUnixNano: r.timeUnixNano,
              });
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{}' : '{"message":"collector says no"}');
    });
  });
  return {
    ...server,
    records,
    requests,
    failNext(n, status) {
      failing = { n, status };
    },
    openConnections: () => new Promise((r) => server.server.getConnections((_e, n) => r(n))),
  };
}
