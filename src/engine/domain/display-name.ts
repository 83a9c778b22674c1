/**
 * The rule for free-text names of records (projects, API keys, credentials, proxies): trimmed,
 * 1 to 255 characters counted as code points (so an emoji is one character, as users count).
 * One rule so every resource answers the same 400 for the same name.
 */
import { DomainError } from '../../shared/errors/domain-error.js';

/** Returns the trimmed name, or throws 400 naming `field`. */
export function checkDisplayName(name: string, field = 'name'): string {
  const trimmed = name.trim();
  const length = [...trimmed].length;
  if (length < 1 || length > 255) throw DomainError.invalidField(field, 'must be 1 to 255 characters');
  return trimmed;
}
