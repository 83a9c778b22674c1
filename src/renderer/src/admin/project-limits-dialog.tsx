/** Edit a project's caps; an empty field means "no project-level cap" (sent as 0, which removes it). */
import { useEffect, useState } from 'react';
import type { Project, ProjectLimits } from '../../../shared/wire/org';
import { getProjectLimits, setProjectLimits } from '../stores/projects';
import { Button, Field, Spinner } from '../components/ui';
import { Dialog } from '../components/dialog';
import { notify } from '../stores/toasts';
import { errorMessage } from '../transport/transport';

const FIELDS: Array<{ key: keyof ProjectLimits; label: string }> = [
  { key: 'max_concurrent_sessions', label: 'Max concurrent sessions' },
  { key: 'max_concurrent_invocations', label: 'Max concurrent invocations' },
];

export function ProjectLimitsDialog({ project, onClose }: { project: Project | null; onClose: () => void }): React.JSX.Element | null {
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setValues(null);
    setError(null);
    if (!project) return;
    getProjectLimits(project.id).then(
      (l) => setValues(Object.fromEntries(FIELDS.map((f) => [f.key, l[f.key] == null ? '' : String(l[f.key])]))),
      (err) => setError(errorMessage(err)),
    );
  }, [project]);
  const save = async (): Promise<void> => {
    if (!project || !values) return;
    setBusy(true);
    setError(null);
    try {
      const body = Object.fromEntries(FIELDS.map((f) => [f.key, values[f.key].trim() === '' ? 0 : Number(values[f.key])]));
      await setProjectLimits(project.id, body);
      notify(`Saved limits of ${project.name}`);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={!!project}
      title={`Limits of ${project?.name ?? ''}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} disabled={!values} onClick={() => void save()}>
            Save limits
          </Button>
        </>
      }
    >
      {!values && !error ? <Spinner label="Loading limits" /> : null}
      {values ? (
        <form
          className="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          {FIELDS.map((f) => (
            <Field key={f.key} label={f.label} hint="Empty = no cap for this project.">
              <input type="number" min={0} value={values[f.key]} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} />
            </Field>
          ))}
        </form>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
