/**
 * Internal RPCs over real sockets: requests (requestInOneWrite) and answers (answerInOneWrite)
 * are whole HTTP messages with Content-Length, not chunked; connect-node's own client still works
 * against the handler; network faults keep their retryable codes.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Code, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { afterEach, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { answerInOneWrite } from '../answerInOneWrite.js';
import { serviceClient } from '../rpcClient.js';
import { settleToCode } from './settleToCode.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

const token = async () => 'test-token';

/** A UserService whose getUser answers with a name of `nameLength` characters; every request's head and wire bytes are kept. */
async function userService(nameLength = 10): Promise<{ url: string; requests: IncomingMessage['headers'][]; answers: string[] }> {
  const requests: IncomingMessage['headers'][] = [];
  const answers: string[] = [];
  const handler = answerInOneWrite({
    routes: (router) => router.service(UserService, { getUser: (req) => ({ user: { userId: req.userId, fullName: 'x'.repeat(nameLength) } }) }),
    interceptors: [],
  });
  const server = createServer((req, res) => {
    requests.push(req.headers);
    handler(req, res);
  });
  server.on('connection', (socket: Socket) => {
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      answers.push(Buffer.from(chunk as Buffer).toString('latin1'));
      return write(chunk, ...rest);
    }) as Socket['write'];
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, answers };
}

describe('internal RPCs in one write', () => {
  it('a request carries Content-Length and no chunked encoding, and asks for no compression', async () => {
    const svc = await userService();
    const client = serviceClient(UserService, svc.url, token);
    expect((await client.getUser({ userId: 'usr-1' })).user?.userId).toBe('usr-1');
    expect(svc.requests[0]['content-length']).toMatch(/^\d+$/);
    expect(svc.requests[0]['transfer-encoding']).toBeUndefined();
    expect(svc.requests[0]['connect-accept-encoding']).toBeUndefined();
    expect(svc.requests[0]['x-passkeyauth-caller']).toBe('test-token');
  });

  it('an answer, also one over 1 KiB, is one Content-Length message, not compressed', async () => {
    const svc = await userService(5000);
    const client = serviceClient(UserService, svc.url, token);
    expect((await client.getUser({ userId: 'usr-1' })).user?.fullName).toHaveLength(5000);
    const answer = svc.answers.join('');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.toLowerCase()).toContain('content-length:');
    expect(answer.toLowerCase()).not.toContain('transfer-encoding');
    expect(answer.toLowerCase()).not.toContain('content-encoding');
  });

  it('connect-node\'s own client (chunked requests, gzip accepted) is answered as before', async () => {
    const svc = await userService(5000);
    const client = createClient(UserService, createConnectTransport({ baseUrl: svc.url, httpVersion: '1.1', useBinaryFormat: true }));
    expect((await client.getUser({ userId: 'usr-2' })).user?.fullName).toHaveLength(5000);
    expect(await settleToCode(createClient(UserService, createConnectTransport({ baseUrl: `${svc.url}/nowhere`, httpVersion: '1.1' })).getUser({ userId: 'x' }))).toBe(Code.Unimplemented);
  });

  it('a refused connection is Unavailable, a connection cut before the answer is Aborted, a deadline is DeadlineExceeded', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await settleToCode(serviceClient(UserService, `http://127.0.0.1:${port}`, token).getUser({ userId: 'u' }))).toBe(Code.Unavailable);

    const cutting = createServer((req) => req.socket.destroy());
    const silent = createServer(() => undefined);
    for (const s of [cutting, silent]) {
      servers.push(s);
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    }
    const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    expect(await settleToCode(serviceClient(UserService, url(cutting), token).getUser({ userId: 'u' }))).toBe(Code.Aborted);
    expect(await settleToCode(serviceClient(UserService, url(silent), token).getUser({ userId: 'u' }, { timeoutMs: 200 }))).toBe(Code.DeadlineExceeded);
  });
});
