/**
 * The Error object's type as api/ modules spell it: the same class as the domain's
 * `DomainError` (src/shared/errors/domain-error.ts), so whatever domain, runtime or api throws
 * is one type that the error handler (error-handler.ts) renders, headers included.
 */
export { DomainError as ApiError, type ErrorDetail, type RetryHint } from '../../shared/errors/domain-error.js';
