/** Reads a JSON request body with a size limit; answers 415/413/400 as HttpErrors. */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errorResponse.js';

export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Whether the request carries a body (a DELETE may: the web SDK's DELETE /v2/me/identifier sends
 * JSON). A Content-Type alone is no body: clients that set it on every request keep their DELETEs
 * read from the query string, as before.
 */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  // A request without any body (POST /v2/me/logout, /v2/me/refresh, …) is an empty object; only a
  // body that is there must say it is JSON.
  const length = req.headers['content-length'];
  const noBody = !req.headers['content-type'] && (length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined));
  if (noBody) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    throw new HttpError(415, { type: 'unsupported_media_type', details: 'the request body must be JSON (Content-Type: application/json)' });
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    throw new HttpError(413, { type: 'payload_too_large', details: `the request body must be at most ${limit} bytes` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new HttpError(413, { type: 'payload_too_large', details: `the request body must be at most ${limit} bytes` });
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new HttpError(400, { type: 'invalid_json', details: 'the request body is not valid JSON' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, { type: 'invalid_json', details: 'the request body must be a JSON object' });
  }
  return parsed as Record<string, unknown>;
}
