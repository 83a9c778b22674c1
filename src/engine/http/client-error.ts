/**
 * Requests Node's HTTP parser rejects before Fastify sees them (headers or URL over the 16 KiB
 * limit, a malformed request line, a header timeout) are answered on the raw socket. Fastify's
 * default writes its own `{error, statusCode}` shape; this writes the wire Error object instead.
 */
import type { Socket } from 'node:net';
import { errorBody } from './error-handler.js';
import { ApiError } from './api-error.js';

function apiErrorOf(err: NodeJS.ErrnoException): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return new ApiError(431, 'request_header_too_large', 'the request line and headers exceed 16 KiB (a very long URL or query string?)');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(408, 'request_timeout', 'the request was not received in time');
  return new ApiError(400, 'invalid_request', 'the request is not valid HTTP');
}

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A connection reset by the peer has nobody to answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const e = apiErrorOf(err);
  const body = JSON.stringify(errorBody(e));
  socket.end(
    `HTTP/1.1 ${e.status} ${e.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
