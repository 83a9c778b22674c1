/**
 * Audit logs: a time window plus the filters of wire §3.3, results paged with the server's
 * page token ("Load more"), and an export of the same query as a JSON Lines file.
 */
import { useEffect, useState } from 'react';
import { useAuditLogs, type AuditFilters } from '../stores/audit-logs';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, Spinner, formatTime } from '../components/ui';
import { notify, reportError } from '../stores/toasts';

/** `<input type=datetime-local>` works in local time without seconds; the API wants ISO. */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const fromLocalInput = (v: string): string => new Date(v).toISOString();
const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function statusTone(status: number): 'ok' | 'warn' | 'bad' {
  return status < 400 ? 'ok' : status < 500 ? 'warn' : 'bad';
}

export function AuditLogsPage(): React.JSX.Element {
  const { filters, entries, nextToken, loading, loaded, error, exporting, search, loadMore, exportAll } = useAuditLogs();
  const [draft, setDraft] = useState({ ...filters, exclude: filters.exclude_method.join(', '), users: filters.search_user_id.join(', ') });
  const [format, setFormat] = useState<'jsonl' | 'jsonl.gz'>('jsonl');
  const current = (): AuditFilters => ({ ...draft, exclude_method: list(draft.exclude), search_user_id: list(draft.users) });
  useEffect(() => {
    if (!loaded) void search(filters);
  }, [loaded, search, filters]);

  return (
    <section className="page">
      <PageHeader
        title="Audit logs"
        subtitle="Every API request of the organization: who, what, when, and the answer."
        actions={
          <>
            <select aria-label="Export format" value={format} onChange={(e) => setFormat(e.target.value as 'jsonl' | 'jsonl.gz')}>
              <option value="jsonl">JSON Lines</option>
              <option value="jsonl.gz">JSON Lines, gzip</option>
            </select>
            <Button
              busy={exporting}
              onClick={() =>
                void exportAll(format).then((r) => {
                  if (r.saved)
                    notify(
                      `Exported ${r.bytes.toLocaleString()} bytes in ${r.chunks} chunk${r.chunks === 1 ? '' : 's'}${r.location ? ` to ${r.location}` : ''}`,
                    );
                }, reportError)
              }
            >
              Export
            </Button>
          </>
        }
      />
      <form
        className="card filters"
        onSubmit={(e) => {
          e.preventDefault();
          void search(current());
        }}
      >
        <Field label="From">
          <input
            type="datetime-local"
            value={toLocalInput(draft.start)}
            onChange={(e) => e.target.value && setDraft({ ...draft, start: fromLocalInput(e.target.value) })}
          />
        </Field>
        <Field label="To (exclusive)">
          <input
            type="datetime-local"
            value={toLocalInput(draft.end)}
            onChange={(e) => e.target.value && setDraft({ ...draft, end: fromLocalInput(e.target.value) })}
          />
        </Field>
        <Field label="Search" hint="Path, user id, email, client IP or status.">
          <input type="search" data-search value={draft.search} onChange={(e) => setDraft({ ...draft, search: e.target.value })} />
        </Field>
        <Field label="Method">
          <select value={draft.method} onChange={(e) => setDraft({ ...draft, method: e.target.value })}>
            <option value="">Any</option>
            {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field label="Exclude methods" hint="Comma-separated, e.g. GET">
          <input value={draft.exclude} onChange={(e) => setDraft({ ...draft, exclude: e.target.value })} />
        </Field>
        <Field label="Auth strategy">
          <select value={draft.auth_strategy} onChange={(e) => setDraft({ ...draft, auth_strategy: e.target.value })}>
            <option value="">Any</option>
            <option value="api_key">api_key</option>
            <option value="session_jwt">session_jwt</option>
            <option value="invocation_key">invocation_key</option>
          </select>
        </Field>
        <Field label="Service" hint="e.g. browsers, org">
          <input value={draft.service} onChange={(e) => setDraft({ ...draft, service: e.target.value })} />
        </Field>
        <Field label="User ids" hint="Comma-separated key ids.">
          <input value={draft.users} onChange={(e) => setDraft({ ...draft, users: e.target.value })} />
        </Field>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={loading}>
            Search
          </Button>
        </div>
      </form>
      {error ? <ErrorBanner message={error} onRetry={() => void search(current())} /> : null}
      {loaded && !entries.length && !error ? (
        <EmptyState title="No audit entries in this window">Widen the time range or clear filters. Every API request made from now on appears here.</EmptyState>
      ) : null}
      {entries.length ? (
        <table className="table audit">
          <thead>
            <tr>
              <th>Time</th>
              <th>Request</th>
              <th>Status</th>
              <th>Who</th>
              <th>Client</th>
              <th className="num">ms</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={`${e.timestamp}-${i}`}>
                <td className="nowrap">{formatTime(e.timestamp)}</td>
                <td>
                  <span className="method">{e.method}</span> <span className="mono small wrap">{e.path}</span>
                  <div className="muted small">{e.route}</div>
                </td>
                <td>
                  <Badge tone={statusTone(e.status)}>{e.status}</Badge>
                </td>
                <td title={`user id ${e.user_id}`}>
                  <span className="small">{e.email}</span>
                  <div className="small muted">{e.auth_strategy}</div>
                </td>
                <td className="small">
                  {e.client_ip}
                  <div className="muted ellipsis" title={e.user_agent}>
                    {e.user_agent}
                  </div>
                </td>
                <td className="num">{e.duration_ms}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <div className="load-more">
        {loading && loaded ? <Spinner label="Loading" /> : null}
        {nextToken ? (
          <Button onClick={() => void loadMore()} disabled={loading}>
            Load more
          </Button>
        ) : entries.length ? (
          <span className="muted small">End of results ({entries.length} entries)</span>
        ) : null}
      </div>
    </section>
  );
}
