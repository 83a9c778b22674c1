/**
 * The small component kit every screen uses (styled by styles/app.css): buttons with a busy
 * state, page header, empty state that says what to do next, form field, badge, spinner.
 */
import { cloneElement, isValidElement, useId, type ButtonHTMLAttributes, type ReactNode } from 'react';

export function Spinner({ label }: { label?: string }): React.JSX.Element {
  return <span className="spinner" role="progressbar" aria-label={label ?? 'Working'} />;
}

export function Button({
  busy,
  variant = 'default',
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean; variant?: 'default' | 'primary' | 'danger' | 'ghost' }): React.JSX.Element {
  return (
    <button type="button" {...rest} className={`btn btn-${variant} ${rest.className ?? ''}`} disabled={rest.disabled || busy} aria-busy={busy || undefined}>
      {busy ? <Spinner /> : null}
      {children}
    </button>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }): React.JSX.Element {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }): React.JSX.Element {
  return (
    <div className="empty-state" role="status">
      <h2>{title}</h2>
      {children ? <p>{children}</p> : null}
      {action}
    </div>
  );
}

export function ErrorBanner({ message, onRetry }: { message: string; onRetry?: () => void }): React.JSX.Element {
  return (
    <div className="banner banner-error" role="alert">
      <span>{message}</span>
      {onRetry ? (
        <Button variant="ghost" onClick={onRetry}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}

/**
 * A labelled form control. A single element child gets the label (via `id`) and the hint (via
 * `aria-describedby`), so its accessible name is exactly `label`; other children are wrapped.
 */
export function Field({ label, hint, children, wide }: { label: string; hint?: ReactNode; children: ReactNode; wide?: boolean }): React.JSX.Element {
  const id = useId();
  const hintId = `${id}-hint`;
  const single = isValidElement(children) && ['input', 'select', 'textarea'].includes(children.type as string);
  return (
    <div className={`field ${wide ? 'field-wide' : ''}`}>
      {single ? (
        <>
          <label className="field-label" htmlFor={id}>
            {label}
          </label>
          {cloneElement(children as React.ReactElement<Record<string, unknown>>, { id, 'aria-describedby': hint ? hintId : undefined })}
        </>
      ) : (
        <label className="field-label-wrap">
          <span className="field-label">{label}</span>
          {children}
        </label>
      )}
      {hint ? (
        <span className="field-hint" id={hintId}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'ok' | 'warn' | 'bad' | 'info'; children: ReactNode }): React.JSX.Element {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
