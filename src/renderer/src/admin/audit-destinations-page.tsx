/**
 * Audit export: the organization's S3 destinations for continuous audit-log delivery (spec
 * §13). List with each destination's delivery state (last delivery, failures, last error),
 * add (bucket, prefix, region, role ARN, KMS key, optional static credentials), test (the role
 * step and a probe upload), pause/resume and delete. The row shows what the bucket owner's
 * trust policy needs (the engine's principal and the external id). Delivery state changes on
 * the engine's own schedule, so the list is polled while the screen is open.
 */
import { useState } from 'react';
import type { AuditDestination, AuditDestinationTestResult } from '../../../shared/wire/audit-destinations';
import { api, type BodyOf } from '../transport/api-client';
import { createListStore } from '../stores/list-store';
import { changed } from '../stores/changes';
import { usePolling } from '../stores/use-polling';
import { notify, reportError } from '../stores/toasts';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog } from '../components/dialog';
import { FormDialog } from '../components/form-dialog';

export const useAuditDestinations = createListStore<AuditDestination, { query: string }>({
  topic: 'audit-destinations',
  filters: { query: '' },
  fetch: () => api.call('GET /audit-logs/export/destinations', { query: { limit: 100 } }),
});

const EMPTY = { bucket: '', prefix: '', region: 'us-east-1', role_arn: '', kms_key_id: '', access_key_id: '', secret_access_key: '' };

function AddDestinationDialog({ open, onClose }: { open: boolean; onClose(): void }): React.JSX.Element | null {
  const [f, setF] = useState(EMPTY);
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement>) => setF({ ...f, [k]: e.target.value });
  return (
    <FormDialog
      open={open}
      title="Add audit export destination"
      confirmLabel="Add destination"
      onClose={() => {
        setF(EMPTY);
        onClose();
      }}
      onSubmit={async () => {
        const body: BodyOf<'POST /audit-logs/export/destinations'> = {
          type: 's3',
          format: 'jsonl.gz',
          bucket: f.bucket.trim(),
          prefix: f.prefix.trim(),
          region: f.region.trim(),
          role_arn: f.role_arn.trim(),
        };
        if (f.kms_key_id.trim()) body.kms_key_id = f.kms_key_id.trim();
        if (f.access_key_id.trim()) body.credentials = { access_key_id: f.access_key_id.trim(), secret_access_key: f.secret_access_key };
        const d = await api.call('POST /audit-logs/export/destinations', { body });
        notify(`Destination s3://${d.bucket}/${d.prefix} added (paused) — test it, then resume`);
        setF(EMPTY);
        changed('audit-destinations');
      }}
    >
      <Field label="Bucket">
        <input value={f.bucket} onChange={set('bucket')} autoFocus placeholder="my-audit-logs" />
      </Field>
      <Field label="Prefix" hint="Objects go under <prefix>/destination_id=…/org_id=…/date=…/hour=…/">
        <input value={f.prefix} onChange={set('prefix')} placeholder="browserdeck/audit" />
      </Field>
      <Field label="Region">
        <input value={f.region} onChange={set('region')} />
      </Field>
      <Field label="Role ARN" hint="The role the engine assumes (when the operator configured STS)" wide>
        <input value={f.role_arn} onChange={set('role_arn')} placeholder="arn:aws:iam::123456789012:role/audit-writer" />
      </Field>
      <Field label="KMS key (optional)" hint="Objects are written with SSE-KMS under this key" wide>
        <input value={f.kms_key_id} onChange={set('kms_key_id')} placeholder="alias/audit" />
      </Field>
      <Field label="Access key id (optional)" hint="Static credentials for S3-compatible stores; stored encrypted, never shown again">
        <input value={f.access_key_id} onChange={set('access_key_id')} autoComplete="off" />
      </Field>
      <Field label="Secret access key">
        <input type="password" value={f.secret_access_key} onChange={set('secret_access_key')} autoComplete="off" />
      </Field>
    </FormDialog>
  );
}

function Delivery({ d }: { d: AuditDestination }): React.JSX.Element {
  if (d.consecutive_failures > 0) {
    return (
      <div>
        <Badge tone="bad">{d.consecutive_failures} failed</Badge>
        <div className="small muted" title={d.last_error ?? ''}>
          {d.last_error ?? ''}
        </div>
        {d.next_attempt_at ? <div className="small muted">next try {formatTime(d.next_attempt_at)}</div> : null}
      </div>
    );
  }
  return <span className="small nowrap">{d.last_success_at ? formatTime(d.last_success_at) : <span className="muted">not yet</span>}</span>;
}

function TestOutcome({ r }: { r: AuditDestinationTestResult }): React.JSX.Element {
  return r.success ? (
    <p>
      <Badge tone="ok">test passed</Badge> The role step and a probe upload worked.
    </p>
  ) : (
    <p role="alert">
      <Badge tone="bad">failed at {r.stage.replace('_', ' ')}</Badge> {r.error?.message}
    </p>
  );
}

export function AuditDestinationsPage(): React.JSX.Element {
  const { items, error, loaded, refresh } = useAuditDestinations();
  usePolling(refresh, 10_000); // delivery state moves without anyone changing the destination
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<AuditDestination | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, AuditDestinationTestResult>>({});

  const act = async (d: AuditDestination, what: string, work: () => Promise<void>): Promise<void> => {
    setBusy(`${d.id}:${what}`);
    try {
      await work();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };
  const test = (d: AuditDestination) =>
    act(d, 'test', async () => {
      const r = await api.call('POST /audit-logs/export/destinations/:id/test', { params: { id: d.id }, body: {} });
      setTests((t) => ({ ...t, [d.id]: r }));
      setOpen(d.id);
      if (r.success) notify(`s3://${d.bucket}: test passed`);
    });
  const toggle = (d: AuditDestination) =>
    act(d, 'toggle', async () => {
      const status = d.status === 'active' ? 'paused' : 'active';
      await api.call('PATCH /audit-logs/export/destinations/:id', { params: { id: d.id }, body: { status } });
      notify(status === 'active' ? `Delivery to s3://${d.bucket} resumed (from now on)` : `Delivery to s3://${d.bucket} paused`);
      changed('audit-destinations');
    });

  return (
    <section className="page">
      <PageHeader
        title="Audit export"
        subtitle="Continuous delivery of the organization's audit log to S3 as jsonl.gz objects (changes need an org-wide key)."
        actions={
          <Button variant="primary" onClick={() => setAdding(true)}>
            Add destination
          </Button>
        }
      />
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? (
        <EmptyState title="No audit export destinations" action={<Button onClick={() => setAdding(true)}>Add destination</Button>}>
          Add an S3 bucket, test it, then resume it: every audit-log row from then on is delivered in 5-minute windows.
        </EmptyState>
      ) : null}
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Destination</th>
              <th>State</th>
              <th>Last delivery</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((d) => [
              <tr key={d.id}>
                <td>
                  <button type="button" className="link" onClick={() => setOpen(open === d.id ? null : d.id)} aria-expanded={open === d.id}>
                    s3://{d.bucket}/{d.prefix}
                  </button>
                  <div className="mono muted small">
                    {d.id} · {d.region}
                  </div>
                </td>
                <td>{d.status === 'active' ? <Badge tone="ok">active</Badge> : <Badge tone="warn">paused</Badge>}</td>
                <td>
                  <Delivery d={d} />
                </td>
                <td className="small nowrap">{formatTime(d.created_at)}</td>
                <td className="row-actions">
                  <Button aria-label={`Test ${d.bucket}`} busy={busy === `${d.id}:test`} onClick={() => void test(d)}>
                    Test
                  </Button>
                  <Button
                    aria-label={`${d.status === 'active' ? 'Pause' : 'Resume'} ${d.bucket}`}
                    busy={busy === `${d.id}:toggle`}
                    onClick={() => void toggle(d)}
                  >
                    {d.status === 'active' ? 'Pause' : 'Resume'}
                  </Button>
                  <Button aria-label={`Delete ${d.bucket}`} variant="danger" onClick={() => setDeleting(d)}>
                    Delete
                  </Button>
                </td>
              </tr>,
              open === d.id ? (
                <tr key={`${d.id}-details`}>
                  <td colSpan={5}>
                    {tests[d.id] ? <TestOutcome r={tests[d.id]} /> : null}
                    <dl className="props">
                      <dt>Role ARN</dt>
                      <dd className="mono small">{d.role_arn}</dd>
                      <dt>Engine principal</dt>
                      <dd className="mono small">{d.kernel_role_arn || '— (not configured by the operator)'}</dd>
                      <dt>External id</dt>
                      <dd className="mono small">{d.external_id}</dd>
                      <dt>KMS key</dt>
                      <dd className="mono small">{d.kms_key_id || '—'}</dd>
                      <dt>Static credentials</dt>
                      <dd>{d.has_credentials ? 'stored (encrypted)' : 'none'}</dd>
                      <dt>Last error</dt>
                      <dd className="small">{d.last_error ? `${d.last_error} (${formatTime(d.last_error_at)})` : '—'}</dd>
                    </dl>
                  </td>
                </tr>
              ) : null,
            ])}
          </tbody>
        </table>
      ) : null}
      <AddDestinationDialog open={adding} onClose={() => setAdding(false)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete the destination s3://${deleting?.bucket ?? ''}?`}
        message="Delivery stops; objects already in the bucket stay. An upload in flight may still land."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.call('DELETE /audit-logs/export/destinations/:id', { params: { id: deleting!.id } });
          notify('Audit export destination deleted');
          changed('audit-destinations');
        }}
      />
    </section>
  );
}
