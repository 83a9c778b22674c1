/**
 * Web console sign-in: one field labelled "API key". The key goes to `POST /console/session`
 * in the request body and is then forgotten; the browser keeps only the HttpOnly cookie.
 */
import { useState } from 'react';
import { useAuth } from '../stores/auth';
import { Button, Field } from '../components/ui';
import { LogoIcon } from '../components/icons';

export function SignIn(): React.JSX.Element {
  const { signIn, busy, error } = useAuth();
  const [key, setKey] = useState('');
  return (
    <div className="sign-in">
      <form
        className="card sign-in-card"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await signIn(key.trim())) setKey('');
        }}
      >
        <div className="brand brand-dark">
          <span className="brand-mark" aria-hidden>
            <LogoIcon />
          </span>
          Browserdeck
        </div>
        <h1>Sign in to the console</h1>
        <p className="muted">Use an API key of this server. It is kept only for this browser session, in a cookie scripts cannot read.</p>
        <Field label="API key" hint="The admin key is printed at first start and saved as admin-api-key in the data directory.">
          <input type="password" name="api-key" autoComplete="off" spellCheck={false} value={key} onChange={(e) => setKey(e.target.value)} required autoFocus />
        </Field>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <Button type="submit" variant="primary" busy={busy} disabled={!key.trim()}>
          Sign in
        </Button>
      </form>
    </div>
  );
}
