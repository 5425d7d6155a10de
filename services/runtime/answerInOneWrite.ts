/**
 * The Node.js request handler of a service's RPCs: connect-node's adapter, except that each answer
 * leaves in one write, with Content-Length.
 *
 * Written by hand because connect-node's adapter writes the head with the first body chunk and
 * ends the chunked body in a later tick: two writes, and two wake-ups of the caller, per unary
 * answer (see requestInOneWrite.ts for what a write costs). Every RPC of ours is unary (no proto
 * declares a stream), so the answer is whole before it is sent; Connect's unary protocol carries
 * trailers as headers, so there are none to send after the body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Code, ConnectError, createConnectRouter, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest } from '@connectrpc/connect-node';
import { uResponseNotFound, type UniversalHandler, type UniversalServerResponse } from '@connectrpc/connect/protocol';

export interface RpcHandlerOptions {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
}

export function answerInOneWrite(options: RpcHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createConnectRouter({ interceptors: options.interceptors, acceptCompression: [compressionGzip, compressionBrotli] });
  options.routes(router);
  const handlers = new Map<string, UniversalHandler>();
  for (const handler of router.handlers) handlers.set(handler.requestPath, handler);

  return (req, res) => {
    const handler = handlers.get(req.url?.split('?', 2)[0] ?? '');
    if (!handler) {
      res.writeHead(uResponseNotFound.status).end();
      return;
    }
    handler(universalRequestFromNodeRequest(req, res, undefined, undefined))
      .then((answer) => send(answer, res))
      .catch((reason: unknown) => {
        // The caller hung up: nobody is left to answer.
        if (ConnectError.from(reason).code === Code.Aborted) return;
        // Connect answers every failure of a handler itself; reaching here is a fault of ours.
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  };
}

async function send(answer: UniversalServerResponse, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  if (answer.body) for await (const chunk of answer.body) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  answer.header?.forEach((value, key) => (headers[key] = value));
  headers['content-length'] = String(body.length);
  res.writeHead(answer.status, headers);
  res.end(body);
}
