/**
 * Browser pools: the list (name, size, available, acquired, fill rate, idle timeout) with
 * create, and each pool's detail at `#/pools/<id>` (`pool-detail.tsx`). Counts move as
 * browsers launch and are acquired without a change event, so the list also polls.
 */
import { useEffect, useState } from 'react';
import { usePools, poolLabel, POOL_POLL_MS } from './pool-store';
import { PoolFormDialog } from './pool-form-dialog';
import { PoolDetail } from './pool-detail';
import { usePolling } from '../stores/use-polling';
import { href } from '../router';
import { Button, EmptyState, PageHeader, formatTime } from '../components/ui';
import { ListChrome } from '../components/list-chrome';

export function PoolsPage({ id }: { id?: string }): React.JSX.Element {
  if (id) return <PoolDetail id={id} />;
  return <PoolList />;
}

function PoolList(): React.JSX.Element {
  const list = usePools();
  const { items, refresh } = list;
  usePolling(refresh, POOL_POLL_MS);
  useEffect(() => void refresh(), [refresh]);
  const [creating, setCreating] = useState(false);
  return (
    <section className="page">
      <PageHeader
        title="Pools"
        subtitle="Browsers kept ready, acquired in milliseconds (browserPools.acquire)."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            New pool
          </Button>
        }
      />
      <ListChrome
        noun="pools"
        placeholder="Search name or id"
        list={list}
        empty={
          <EmptyState title="No pools" action={<Button onClick={() => setCreating(true)}>New pool</Button>}>
            A pool keeps browsers launched so that acquiring one is instant.
          </EmptyState>
        }
      />
      {items.length ? (
        <table className="table" aria-label="Pools">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Size</th>
              <th className="num">Available</th>
              <th className="num">Acquired</th>
              <th className="num">Fill rate</th>
              <th className="num">Timeout</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((p) => {
              const c = p.browser_pool_config;
              return (
                <tr key={p.id}>
                  <td>
                    <a href={href(`/pools/${encodeURIComponent(p.id)}`)}>{poolLabel(p)}</a>
                    <div className="mono muted small">{p.id}</div>
                  </td>
                  <td className="num">{c.size}</td>
                  <td className="num" data-label="available">
                    {p.available_count}
                  </td>
                  <td className="num" data-label="acquired">
                    {p.acquired_count}
                  </td>
                  <td className="num nowrap">{c.fill_rate_per_minute == null ? '—' : `${c.fill_rate_per_minute} %/min`}</td>
                  <td className="num nowrap">{c.timeout_seconds == null ? '—' : `${c.timeout_seconds} s`}</td>
                  <td className="small nowrap">{formatTime(p.created_at)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <PoolFormDialog open={creating} pool={null} onClose={() => setCreating(false)} />
    </section>
  );
}
