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
  /** A one-time code computed elsewhere (an external provider that gave no secret). */
  totpCode?: string;
}

/**
 * Where a flow's values come from: a stored credential (known up front) or a loader asked when
 * a step first needs values (an external provider). A loader that cannot answer throws
 * AutofillError; the flow then ends FAILED with its code and message.
 */
export type AutofillInput = AutofillSource | (() => Promise<AutofillSource>);

export class AutofillError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function valueFor(f: RawField, src: AutofillSource, now: Date): string | undefined {
  const v = src.values;
  switch (fieldType(f)) {
    case 'identifier':
      return v[f.name] ?? v[fieldRef(f)] ?? v.username ?? v.email ?? v.identifier ?? v.login;
    case 'password':
      return v[f.name] ?? v.password;
    case 'totp_code':
      return src.totpSecret ? totpFromSecret(src.totpSecret, now).code : src.totpCode;
    case 'code':
      // One-time codes sent by SMS/e-mail cannot be known in advance; an authenticator code can.
      if (!/authenticator/i.test(f.label)) return undefined;
      return src.totpSecret ? totpFromSecret(src.totpSecret, now).code : src.totpCode;
    default:
      return v[f.name];
  }
}
