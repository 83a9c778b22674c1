/** A one-field dialog for a path (new folder, move/rename) that shows the server's message on failure. */
import { useEffect, useState } from 'react';
import { FormDialog } from '../../components/form-dialog';
import { Field } from '../../components/ui';

export function PathDialog({
  open,
  title,
  label,
  initial,
  confirmLabel,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  label: string;
  initial: string;
  confirmLabel: string;
  onSubmit(path: string): Promise<void>;
  onClose(): void;
}): React.JSX.Element | null {
  const [value, setValue] = useState(initial);
  useEffect(() => {
    if (open) setValue(initial);
  }, [open, initial]);
  return (
    <FormDialog open={open} title={title} confirmLabel={confirmLabel} onSubmit={() => onSubmit(value)} onClose={onClose}>
      <Field label={label}>
        <input className="mono" value={value} autoFocus onChange={(e) => setValue(e.target.value)} />
      </Field>
    </FormDialog>
  );
}
