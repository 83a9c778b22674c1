/**
 * Create or edit a pool: the fields an operator changes most (name, size, fill rate, idle
 * timeout, start URL, profile, proxy, headless/stealth). Edit sends only what changed (PATCH),
 * so a field the form does not show keeps its value.
 */
import { useEffect, useState } from 'react';
import type { BrowserPool } from './pool-store';
import type { Profile } from '../../../shared/wire/profiles';
import { api, type BodyOf } from '../transport/api-client';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { Field } from '../components/ui';
import { FormDialog } from '../components/form-dialog';

type PoolBody = BodyOf<'POST /browser_pools'>;

interface PoolForm {
  name: string;
  size: string;
  fill_rate: string;
  timeout: string;
  start_url: string;
  profile: string;
  proxy_id: string;
  headless: boolean;
  stealth: boolean;
}

function formOf(p: BrowserPool | null): PoolForm {
  const c = p?.browser_pool_config;
  return {
    name: p?.name ?? '',
    size: String(c?.size ?? 1),
    fill_rate: c?.fill_rate_per_minute == null ? '' : String(c.fill_rate_per_minute),
    timeout: c?.timeout_seconds == null ? '' : String(c.timeout_seconds),
    start_url: c?.start_url ?? '',
    profile: p?.profile_id ?? c?.profile?.id ?? '',
    proxy_id: c?.proxy_id ?? '',
    headless: c?.headless ?? true,
    stealth: c?.stealth ?? false,
  };
}

/** The body of the form: every field for a create, only the changed ones for an edit. */
function bodyOf(f: PoolForm, before: PoolForm | null): PoolBody {
  const body: PoolBody = { size: Number(f.size) };
  const differs = (k: keyof PoolForm): boolean => !before || f[k] !== before[k];
  if (differs('name') && f.name.trim()) body.name = f.name.trim();
  if (differs('fill_rate') && f.fill_rate.trim()) body.fill_rate_per_minute = Number(f.fill_rate);
  if (differs('timeout') && f.timeout.trim()) body.timeout_seconds = Number(f.timeout);
  if (differs('start_url') && f.start_url.trim()) body.start_url = f.start_url.trim();
  if (differs('profile') && f.profile) body.profile = { id: f.profile };
  if (differs('proxy_id') && f.proxy_id.trim()) body.proxy_id = f.proxy_id.trim();
  if (differs('headless')) body.headless = f.headless;
  if (differs('stealth')) body.stealth = f.stealth;
  return body;
}

export function PoolFormDialog({ open, pool, onClose }: { open: boolean; pool: BrowserPool | null; onClose(): void }): React.JSX.Element | null {
  const [f, setF] = useState<PoolForm>(formOf(pool));
  const [profiles, setProfiles] = useState<Profile[]>([]);
  useEffect(() => {
    if (!open) return;
    setF(formOf(pool));
    api.call('GET /profiles', { query: { limit: 100 } }).then(setProfiles, () => setProfiles([]));
  }, [open, pool]);
  const set = (k: keyof PoolForm) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setF((prev) => ({ ...prev, [k]: e.target instanceof HTMLInputElement && e.target.type === 'checkbox' ? e.target.checked : e.target.value }));
  const editing = !!pool;
  return (
    <FormDialog
      open={open}
      title={editing ? `Edit pool ${pool.name ?? pool.id}` : 'New pool'}
      confirmLabel={editing ? 'Save' : 'Create pool'}
      onClose={onClose}
      onSubmit={async () => {
        if (pool) {
          await api.call('PATCH /browser_pools/:id_or_name', { params: { id_or_name: pool.id }, body: bodyOf(f, formOf(pool)) });
          notify(`Pool ${f.name || pool.id} saved`);
        } else {
          const p = await api.call('POST /browser_pools', { body: bodyOf(f, null) });
          notify(`Pool ${p.name ?? p.id} created`);
        }
        changed('pools');
      }}
    >
      <Field label="Name" hint="Unique in the project; acquire by name or id">
        <input value={f.name} onChange={set('name')} autoFocus />
      </Field>
      <Field label="Size" hint="Browsers kept ready">
        <input type="number" min={1} value={f.size} onChange={set('size')} />
      </Field>
      <Field label="Fill rate" hint="% of size launched per minute (default 10)">
        <input type="number" min={1} value={f.fill_rate} onChange={set('fill_rate')} />
      </Field>
      <Field label="Idle timeout (s)" hint="An acquired browser ends after this long idle">
        <input type="number" min={0} value={f.timeout} onChange={set('timeout')} />
      </Field>
      <Field label="Start URL">
        <input value={f.start_url} onChange={set('start_url')} />
      </Field>
      <Field label="Profile" hint="Browsers start with its saved state">
        <select value={f.profile} onChange={set('profile')}>
          <option value="">None</option>
          {profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name ?? p.id}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Proxy id">
        <input value={f.proxy_id} onChange={set('proxy_id')} />
      </Field>
      <div className="field">
        <label className="check-field">
          <input type="checkbox" checked={f.headless} onChange={set('headless')} /> Headless
        </label>
        <label className="check-field">
          <input type="checkbox" checked={f.stealth} onChange={set('stealth')} /> Stealth
        </label>
      </div>
    </FormDialog>
  );
}
