/**
 * The one error type the engine's rules (domain) and runtime raise: a wire `code`, a message,
 * `details`, and the HTTP status it stands for. Nothing here knows HTTP: `http/error-handler.ts`
 * renders it as the wire Error object ({code, message, details, inner_error}) and turns the
 * retry hint into headers, in one place. (`http/api-error.ts` exports this same class as
 * `ApiError` for the api/ modules.)
 */
export interface ErrorDetail {
  code: string;
  message: string;
}

/** What a client should do about retrying; the error handler renders it as headers. */
export interface RetryHint {
  /** Seconds to wait before trying again (`Retry-After`). */
  afterSeconds?: number;
  /** False: retrying cannot fix it (`x-should-retry: false`; the official client retries 409 by default). */
  retryable?: false;
}

export class DomainError extends Error {
  constructor(
    /** The HTTP status this error stands for (400 invalid, 404 not found, 409 conflict, …). */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly retry: RetryHint = {},
    readonly innerError?: ErrorDetail,
  ) {
    super(message);
  }

  static badRequest(message: string, details: ErrorDetail[] = []): DomainError {
    return new DomainError(400, 'invalid_request', message, details);
  }

  static invalidField(field: string, message: string): DomainError {
    return new DomainError(400, 'invalid_request', `${field}: ${message}`, [{ code: 'invalid_field', message: `${field}: ${message}` }]);
  }

  static unauthorized(message = 'missing or invalid API key'): DomainError {
    return new DomainError(401, 'unauthorized', message);
  }

  static forbidden(message: string): DomainError {
    return new DomainError(403, 'forbidden', message);
  }

  static notFound(what: string, id?: string): DomainError {
    return new DomainError(404, 'not_found', id === undefined ? `${what} not found` : `${what} '${id}' not found`);
  }

  /** A conflict that retrying cannot fix: tells the official client not to retry (it retries 409 by default). */
  static conflict(message: string, code = 'conflict'): DomainError {
    return new DomainError(409, code, message, [], { retryable: false });
  }

  static unprocessable(message: string, code = 'unprocessable'): DomainError {
    return new DomainError(422, code, message);
  }

  static tooMany(message: string, code: string, retryAfterSeconds: number): DomainError {
    return new DomainError(429, code, message, [], { afterSeconds: retryAfterSeconds });
  }
}
