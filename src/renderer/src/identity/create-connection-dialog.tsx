/**
 * The "New auth connection" dialog: domain, profile, login URL, allowed domains, options, and
 * where the login values come from — typed in during the flow (none), a stored credential by
 * name, or a credential provider's item (a Vault/Item path, or the item matching the domain).
 */
import { useEffect, useState } from 'react';
import type { CredentialProviderRecord } from '../../../shared/wire/credential-providers';
import { api, type BodyOf } from '../transport/api-client';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { Field } from '../components/ui';
import { FormDialog } from '../components/form-dialog';

type Source = 'none' | 'stored' | 'provider';
const ANY = '*any*';
const EMPTY = {
  domain: '',
  profile_name: '',
  login_url: '',
  allowed: '',
  save_credentials: true,
  record_session: false,
  source: 'none' as Source,
  credential_name: '',
  provider: '',
  path: '',
  auto: false,
};

type ConnectionBody = BodyOf<'POST /auth/connections'>;

function credentialOf(f: typeof EMPTY): ConnectionBody['credential'] {
  if (f.source === 'stored') return { name: f.credential_name.trim() };
  // ANY: no provider named — the enabled providers are asked by priority for the domain's item.
  if (f.source === 'provider' && f.provider === ANY) return { auto: true };
  if (f.source === 'provider') return f.auto ? { provider: f.provider, auto: true } : { provider: f.provider, path: f.path.trim() };
  return undefined;
}

export function CreateConnection({ open, onClose }: { open: boolean; onClose(): void }): React.JSX.Element | null {
  const [f, setF] = useState(EMPTY);
  const [providers, setProviders] = useState<CredentialProviderRecord[]>([]);
  useEffect(() => {
    if (!open) return;
    // Listing providers is allowed to any key; an engine without them just offers none.
    api.call('GET /org/credential_providers', { query: { limit: 100 } }).then(setProviders, () => setProviders([]));
  }, [open]);
  const text = (k: keyof typeof EMPTY) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setF({ ...f, [k]: e.target.value });
  return (
    <FormDialog
      open={open}
      title="New auth connection"
      confirmLabel="Create connection"
      onClose={() => {
        setF(EMPTY);
        onClose();
      }}
      onSubmit={async () => {
        const body: ConnectionBody = {
          domain: f.domain.trim(),
          profile_name: f.profile_name.trim(),
          save_credentials: f.save_credentials,
          record_session: f.record_session,
        };
        if (f.login_url.trim()) body.login_url = f.login_url.trim();
        const allowed = f.allowed.split(/[\s,]+/).filter(Boolean);
        if (allowed.length) body.allowed_domains = allowed;
        const credential = credentialOf(f);
        if (credential) body.credential = credential;
        await api.call('POST /auth/connections', { body });
        notify(`Connection for ${f.domain} created`);
        setF(EMPTY);
        changed('auth-connections');
      }}
    >
      <Field label="Domain">
        <input value={f.domain} placeholder="example.com" onChange={text('domain')} />
      </Field>
      <Field label="Profile name" hint="Created if it does not exist">
        <input value={f.profile_name} onChange={text('profile_name')} />
      </Field>
      <Field label="Login URL" wide>
        <input value={f.login_url} placeholder="https://example.com/login" onChange={text('login_url')} />
      </Field>
      <Field label="Allowed domains" hint="Space or comma separated" wide>
        <input value={f.allowed} onChange={text('allowed')} />
      </Field>
      <Field label="Login values" hint="Where the flow takes the username and password from" wide>
        <select value={f.source} onChange={text('source')}>
          <option value="none">Entered during the login</option>
          <option value="stored">A stored credential</option>
          <option value="provider" disabled={!providers.length}>
            A credential provider{providers.length ? '' : ' (none configured)'}
          </option>
        </select>
      </Field>
      {f.source === 'stored' ? (
        <Field label="Credential name" wide>
          <input value={f.credential_name} onChange={text('credential_name')} />
        </Field>
      ) : null}
      {f.source === 'provider' ? (
        <>
          <Field label="Provider">
            <select value={f.provider} onChange={text('provider')}>
              <option value="">Choose…</option>
              <option value={ANY}>Any, by priority (matching the domain)</option>
              {providers.map((p) => (
                <option key={p.id} value={p.name}>
                  {p.name}
                  {p.enabled ? '' : ' (disabled)'}
                </option>
              ))}
            </select>
          </Field>
          {f.provider === ANY ? null : (
            <>
              <Field label="Item path" hint="Vault/Item, e.g. Private/Example">
                <input value={f.path} onChange={text('path')} disabled={f.auto} />
              </Field>
              <label className="check-field">
                <input type="checkbox" checked={f.auto} onChange={(e) => setF({ ...f, auto: e.target.checked })} /> Pick the item whose website matches the
                domain
              </label>
            </>
          )}
        </>
      ) : null}
      <label className="check-field">
        <input type="checkbox" checked={f.save_credentials} onChange={(e) => setF({ ...f, save_credentials: e.target.checked })} /> Save credentials
      </label>
      <label className="check-field">
        <input type="checkbox" checked={f.record_session} onChange={(e) => setF({ ...f, record_session: e.target.checked })} /> Record the login session
      </label>
    </FormDialog>
  );
}
