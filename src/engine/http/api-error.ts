/**
 * The one error type of the HTTP layer. Anything thrown as an ApiError is rendered as the
 * wire Error object ({code, message, details, inner_error}) by the error handler.
 */
export interface ErrorDetail {
  code: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
    readonly innerError?: ErrorDetail,
  ) {
    super(message);
  }

  static badRequest(message: string, details: ErrorDetail[] = []): ApiError {
    return new ApiError(400, 'invalid_request', message, details);
  }

  static invalidField(field: string, message: string): ApiError {
    return new ApiError(400, 'invalid_request', `${field}: ${message}`, [{ code: 'invalid_field', message: `${field}: ${message}` }]);
  }

  static unauthorized(message = 'missing or invalid API key'): ApiError {
    return new ApiError(401, 'unauthorized', message);
  }

  static forbidden(message: string): ApiError {
    return new ApiError(403, 'forbidden', message);
  }

  static notFound(what: string, id?: string): ApiError {
    return new ApiError(404, 'not_found', id === undefined ? `${what} not found` : `${what} '${id}' not found`);
  }

  /** A conflict that retrying cannot fix: tells the official client not to retry (it retries 409 by default). */
  static conflict(message: string, code = 'conflict'): ApiError {
    return new ApiError(409, code, message, [], { 'x-should-retry': 'false' });
  }

  static unprocessable(message: string, code = 'unprocessable'): ApiError {
    return new ApiError(422, code, message);
  }

  static tooMany(message: string, code: string, retryAfterSeconds: number): ApiError {
    return new ApiError(429, code, message, [], { 'retry-after': String(retryAfterSeconds) });
  }
}
