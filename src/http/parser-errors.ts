import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './errors';
import { ApiError } from './api-error';

/**
 * Answers a request Node's HTTP parser refused (a raw space in the path, a control character in a header, a bad
 * Content-Length, oversized headers) in the API's error shape, then closes the connection: there is nothing to route.
 */
export function answerClientError(error: Error & { code?: string; reason?: string }, socket: Duplex): void {
  // The client went away: there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error);
  const body = JSON.stringify(errorBody(answer));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode] ?? 'Error'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The API's error for a parser error, by Node's error code. */
export function clientErrorAnswer(error: { code?: string; reason?: string }): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('request_timeout', 'The request did not arrive in time; send it again.');
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      'headers_too_large',
      'The request headers are larger than the server accepts; send fewer or shorter headers.',
    );
  }
  // llhttp's reason ("Invalid header value char") is about the bytes sent, never about the server: safe to echo.
  const reason = error.reason ?? error.code ?? 'malformed request';
  return new ApiError(
    'bad_request',
    `The request is not valid HTTP (${reason}). Percent-encode spaces and other reserved characters in the path, ` +
      'keep control characters out of header values, and send a numeric Content-Length that matches the body.',
  );
}
