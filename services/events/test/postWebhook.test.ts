/** The HTTP POST of a delivery against a loopback receiver: the address check, the status, the timeout. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookPoster } from '../src/delivery/postWebhook.js';

let server: Server;
let port = 0;
const bodies: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(req.url === '/gone' ? 410 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('webhookPoster', () => {
  const post = webhookPoster(500);

  it('posts the body and answers the status when private addresses are allowed', async () => {
    expect(await post(`http://127.0.0.1:${port}/ok`, { 'content-type': 'application/json' }, '{"a":1}', true)).toEqual({ status: 204 });
    expect(bodies.at(-1)).toBe('{"a":1}');
    expect(await post(`http://localhost:${port}/gone`, {}, '{}', true)).toEqual({ status: 410 });
  });

  it('refuses loopback by IP literal and by name when they are not allowed, without connecting', async () => {
    const before = bodies.length;
    expect(await post(`http://127.0.0.1:${port}/ok`, {}, '{}', false)).toEqual({ status: 0, error: 'address_not_allowed' });
    expect(await post(`http://localhost:${port}/ok`, {}, '{}', false)).toEqual({ status: 0, error: 'address_not_allowed' });
    expect(await post(`http://[::1]:${port}/ok`, {}, '{}', false)).toEqual({ status: 0, error: 'address_not_allowed' });
    expect(bodies.length).toBe(before);
  });

  it('reuses a connection only to the address this attempt checked, and checks again at every attempt', async () => {
    // A receiver of its own, so no connection kept by another test counts.
    let own = 0;
    let received = 0;
    const receiver = createServer((req, res) => {
      received++;
      req.resume().on('end', () => res.writeHead(204).end());
    }).on('connection', () => own++);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const ownPort = (receiver.address() as AddressInfo).port;
    try {
      // A host name resolved to the same checked address shares its kept connection.
      for (const url of [`http://127.0.0.1:${ownPort}/ok`, `http://localhost:${ownPort}/ok`, `http://127.0.0.1:${ownPort}/ok`]) {
        expect(await post(url, {}, '{}', true)).toEqual({ status: 204 });
      }
      expect(own).toBe(1);
      expect(received).toBe(3);
      // The allowance revoked: the kept connection to that address is not used; nothing is sent.
      expect(await post(`http://localhost:${ownPort}/ok`, {}, '{}', false)).toEqual({ status: 0, error: 'address_not_allowed' });
      expect(await post(`http://127.0.0.1:${ownPort}/ok`, {}, '{}', false)).toEqual({ status: 0, error: 'address_not_allowed' });
      expect(received).toBe(3);
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('gives up after its timeout', async () => {
    expect(await post(`http://127.0.0.1:${port}/hang`, {}, '{}', true)).toEqual({ status: 0, error: 'timeout' });
  });
});
