/** Organization limits: the org-wide cap (set by the server operator) and the default per-project cap. */
import { useEffect, useState } from 'react';
import { useOrgLimits } from '../stores/org-limits';
import { Button, ErrorBanner, Field, PageHeader, Spinner } from '../components/ui';
import { notify } from '../stores/toasts';
import { errorMessage } from '../transport/transport';

export function OrgLimitsPage(): React.JSX.Element {
  const { limits, error, refresh, save } = useOrgLimits();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (limits) setValue(limits.default_project_max_concurrent_sessions == null ? '' : String(limits.default_project_max_concurrent_sessions));
  }, [limits]);
  return (
    <section className="page">
      <PageHeader title="Organization limits" subtitle="Caps on concurrently running browsers." />
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {!limits && !error ? <Spinner label="Loading limits" /> : null}
      {limits ? (
        <form
          className="card form-grid narrow"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setSaveError(null);
            try {
              await save(value.trim() === '' ? null : Number(value));
              notify('Saved organization limits');
            } catch (err) {
              setSaveError(errorMessage(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <Field label="Max concurrent sessions (organization)" hint="Set by the server operator (--max-concurrent-sessions).">
            <input value={limits.max_concurrent_sessions} readOnly disabled />
          </Field>
          <Field label="Default max concurrent sessions per project" hint="Applies to projects without their own cap. Empty = no default.">
            <input type="number" min={0} value={value} onChange={(e) => setValue(e.target.value)} />
          </Field>
          {saveError ? (
            <p className="form-error" role="alert">
              {saveError}
            </p>
          ) : null}
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy}>
              Save
            </Button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
