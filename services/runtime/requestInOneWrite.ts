/**
 * The HTTP/1.1 client of internal RPCs: each request leaves in one write, with Content-Length.
 *
 * Written by hand because connect-node's own HTTP/1.1 client sends the headers at once
 * (flushHeaders), then the body as a chunk, then the chunked-encoding terminator: three writes,
 * and as many wake-ups of the receiving process, per unary call. On the 2-core machine a
 * cross-process write cost about as much CPU as the rest of a small RPC's handling. Every
 * internal RPC is unary (no proto declares a stream), so the body is whole before it is sent.
 * Errors are mapped as connect-node maps them (faultOf), so a refused or reset
 * connection stays a retryable fault.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Code, ConnectError } from '@connectrpc/connect';
import type { UniversalClientFn, UniversalClientRequest, UniversalClientResponse } from '@connectrpc/connect/protocol';

export function requestInOneWrite(): UniversalClientFn {
  return async function send(req: UniversalClientRequest): Promise<UniversalClientResponse> {
    const body = await readAll(req.body);
    const headers: Record<string, string> = {};
    req.header.forEach((value, key) => (headers[key] = value));
    headers['content-length'] = String(body.length);
    return new Promise<UniversalClientResponse>((resolve, reject) => {
      const outgoing = httpRequest(req.url, { method: req.method, headers });
      const abort = () => outgoing.destroy(faultOf(req.signal?.reason));
      const done = () => req.signal?.removeEventListener('abort', abort);
      outgoing.on('error', (err) => {
        done();
        reject(faultOf(err));
      });
      outgoing.on('response', (res) => {
        const header = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined) header.set(key, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: res.statusCode ?? 0, header, body: bodyOf(res, done), trailer: new Headers() });
      });
      if (req.signal?.aborted) return abort();
      req.signal?.addEventListener('abort', abort, { once: true });
      // Headers and body together: Node writes them with one writev.
      outgoing.end(body);
    });
  };
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks);
}

/** The response body; a connection lost midway ends it with the mapped error. */
async function* bodyOf(res: IncomingMessage, done: () => void): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of res) yield chunk as Buffer;
  } catch (err) {
    throw faultOf(err);
  } finally {
    done();
  }
}

/**
 * A Node.js network error as a ConnectError, with the codes connect-node's own client gives (its
 * mapping is not exported): refused or unresolvable → Unavailable, reset or destroyed → Aborted,
 * anything else Internal; the original error stays the cause.
 */
function faultOf(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  const codes = new Set<unknown>();
  for (let e: unknown = reason, depth = 0; e instanceof Error && depth < 8; e = (e as { cause?: unknown }).cause, depth++) codes.add((e as { code?: unknown }).code);
  const has = (...names: string[]) => names.some((n) => codes.has(n));
  const code = has('ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN') ? Code.Unavailable : has('ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END') ? Code.Aborted : Code.Internal;
  const error = ConnectError.from(reason, code);
  if (error !== reason) error.cause = reason;
  return error;
}
