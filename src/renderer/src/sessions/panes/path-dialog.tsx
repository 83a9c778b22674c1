/** A one-field dialog for a path (new folder, move/rename) that shows the server's message on failure. */
import { useEffect, useState } from 'react';
import { Dialog } from '../../components/dialog';
import { Button, Field } from '../../components/ui';
import { errorMessage } from '../../transport/transport';

export function PathDialog({ open, title, label, initial, confirmLabel, onSubmit, onClose }: { open: boolean; title: string; label: string; initial: string; confirmLabel: string; onSubmit(path: string): Promise<void>; onClose(): void }): React.JSX.Element | null {
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setValue(initial);
      setError(null);
    }
  }, [open, initial]);
  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(value);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      footer={
        <>
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void submit()}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field label={label}>
          <input className="mono" value={value} autoFocus onChange={(e) => setValue(e.target.value)} />
        </Field>
      </form>
    </Dialog>
  );
}
