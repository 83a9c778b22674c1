/**
 * What a stored credential can answer on a login step: identifier and password values by the
 * field's credential ref, and authenticator (TOTP) codes from the stored secret. One-time codes
 * sent by SMS or e-mail cannot be known in advance, so such steps wait for a person.
 */
import { totpFromSecret } from '../credentials/totp.js';
import type { RawField } from './page-discovery.js';
import { fieldRef, fieldType } from './flow-state.js';

export interface AutofillSource {
  values: Record<string, string>;
  totpSecret?: string;
}

export function valueFor(f: RawField, src: AutofillSource, now: Date): string | undefined {
  const v = src.values;
  switch (fieldType(f)) {
    case 'identifier':
      return v[f.name] ?? v[fieldRef(f)] ?? v.username ?? v.email ?? v.identifier ?? v.login;
    case 'password':
      return v[f.name] ?? v.password;
    case 'totp_code':
      return src.totpSecret ? totpFromSecret(src.totpSecret, now).code : undefined;
    case 'code':
      // One-time codes sent by SMS/e-mail cannot be known in advance; an authenticator code can.
      return /authenticator/i.test(f.label) && src.totpSecret ? totpFromSecret(src.totpSecret, now).code : undefined;
    default:
      return v[f.name];
  }
}
