/** A dialog around a form: submit runs `onSubmit`; a failure keeps it open with the server's message. */
import { useEffect, useState, type ReactNode } from 'react';
import { Dialog } from './dialog';
import { Button } from './ui';
import { errorMessage } from '../transport/transport';

export function FormDialog({
  open,
  title,
  confirmLabel,
  onSubmit,
  onClose,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  onSubmit(): Promise<void>;
  onClose(): void;
  children: ReactNode;
  wide?: boolean;
}): React.JSX.Element | null {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) setError(null);
  }, [open]);
  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit();
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
      wide={wide}
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
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {children}
        <button type="submit" hidden />
      </form>
    </Dialog>
  );
}
