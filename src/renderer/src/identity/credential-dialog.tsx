/**
 * Create or edit a credential. Values are write-only: the form never holds what is stored, only
 * the key names the server lists. On edit a key given a value is replaced, a key ticked for
 * removal is dropped, and every other stored value stays as it is (PATCH merges).
 */
import { useEffect, useState } from 'react';
import type { CredentialRecord as Credential } from '../../../shared/wire/identity';
import { api, type BodyOf } from '../transport/api-client';
import { changed } from '../stores/changes';
import { notify } from '../stores/toasts';
import { Button, Field } from '../components/ui';
import { FormDialog } from '../components/form-dialog';

interface ValueRow {
  key: string;
  value: string;
}

const blankRows = (c: Credential | null): ValueRow[] =>
  c
    ? [{ key: '', value: '' }]
    : [
        { key: 'username', value: '' },
        { key: 'password', value: '' },
      ];

export function CredentialDialog({ open, credential, onClose }: { open: boolean; credential: Credential | null; onClose(): void }): React.JSX.Element | null {
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [sso, setSso] = useState('');
  const [totp, setTotp] = useState('');
  const [rows, setRows] = useState<ValueRow[]>(blankRows(null));
  const [remove, setRemove] = useState<string[]>([]);
  useEffect(() => {
    if (!open) return;
    setName(credential?.name ?? '');
    setDomain(credential?.domain ?? '');
    setSso(credential?.sso_provider ?? '');
    setTotp('');
    setRows(blankRows(credential));
    setRemove([]);
  }, [open, credential]);
  const values = Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.value]));
  const setRow = (i: number, patch: Partial<ValueRow>): void => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <FormDialog
      open={open}
      wide
      title={credential ? `Edit credential ${credential.name}` : 'New credential'}
      confirmLabel={credential ? 'Save' : 'Create credential'}
      onClose={onClose}
      onSubmit={async () => {
        if (credential) {
          const body: BodyOf<'PATCH /credentials/:id_or_name'> = {};
          if (name.trim() !== credential.name) body.name = name.trim();
          if ((sso.trim() || null) !== (credential.sso_provider ?? null)) body.sso_provider = sso.trim() || null;
          if (totp.trim()) body.totp_secret = totp.trim();
          if (Object.keys(values).length) body.values = values;
          if (remove.length) body.remove_value_keys = remove;
          await api.call('PATCH /credentials/:id_or_name', { params: { id_or_name: credential.id }, body });
          notify(`Credential ${name.trim() || credential.name} saved`);
        } else {
          const c = await api.call('POST /credentials', {
            body: {
              name: name.trim(),
              domain: domain.trim(),
              values,
              ...(sso.trim() ? { sso_provider: sso.trim() } : {}),
              ...(totp.trim() ? { totp_secret: totp.trim() } : {}),
            },
          });
          notify(`Credential ${c.name} created`);
        }
        changed('credentials');
      }}
    >
      <Field label="Name" hint="Unique in the project; auth connections refer to it">
        <input value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field label="Domain" hint={credential ? 'Fixed once created' : 'The site these values log in to'}>
        <input value={domain} onChange={(e) => setDomain(e.target.value)} disabled={!!credential} />
      </Field>
      <Field label="SSO provider" hint="Optional, e.g. google">
        <input value={sso} onChange={(e) => setSso(e.target.value)} />
      </Field>
      <Field label="TOTP secret" hint={credential?.has_totp_secret ? 'Set; type a new one to replace it' : 'Optional base32 secret'}>
        <input type="password" value={totp} onChange={(e) => setTotp(e.target.value)} autoComplete="off" />
      </Field>
      <fieldset className="field-wide">
        <legend>{credential ? 'Set values (stored values are never shown; a key given here is replaced)' : 'Values (write-only: never shown again)'}</legend>
        {rows.map((r, i) => (
          <div className="input-group" key={i}>
            <input aria-label={`Value ${i + 1} key`} placeholder="key" value={r.key} onChange={(e) => setRow(i, { key: e.target.value })} />
            <input
              aria-label={`Value ${i + 1}`}
              type="password"
              placeholder="value"
              autoComplete="new-password"
              value={r.value}
              onChange={(e) => setRow(i, { value: e.target.value })}
            />
          </div>
        ))}
        <Button variant="ghost" onClick={() => setRows([...rows, { key: '', value: '' }])}>
          Add value
        </Button>
      </fieldset>
      {credential?.value_keys?.length ? (
        <fieldset className="field-wide">
          <legend>Remove stored values</legend>
          {credential.value_keys.map((k) => (
            <label className="check-field" key={k}>
              <input
                type="checkbox"
                checked={remove.includes(k)}
                onChange={(e) => setRemove(e.target.checked ? [...remove, k] : remove.filter((x) => x !== k))}
              />{' '}
              <span className="mono">{k}</span>
            </label>
          ))}
        </fieldset>
      ) : null}
    </FormDialog>
  );
}
