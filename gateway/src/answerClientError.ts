/**
 * Requests Node's HTTP parser refuses before the gateway sees them (oversized headers or URL,
 * Content-Length together with Transfer-Encoding, bad chunking, a request not complete within
 * the request time-out) get the same errorRsp body as every other error, instead of Node's bare
 * status line.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { errorRsp, type ErrorBody } from './errorResponse.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/** What Node's parser error codes mean for the client. */
function classify(code: string | undefined): { status: number; body: ErrorBody } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, body: { type: 'headers_too_large', details: 'the request line or headers are too large' } };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, body: { type: 'request_timeout', details: 'the request was not received completely in time' } };
  return { status: 400, body: { type: 'malformed_request', details: 'the request is not well-formed HTTP' } };
}

export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A connection the client already closed, or one that has started an answer, cannot take one.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body } = classify(err.code);
  const json = JSON.stringify(errorRsp(status, body, `req-${randomUUID()}`, 0));
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: application/json\r\ncache-control: no-store\r\ncontent-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n${json}`,
  );
}
