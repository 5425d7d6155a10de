/**
 * readJsonBody over a real HTTP server on port 0: 415 for non-JSON, 413 beyond the limit (declared
 * or streamed), 400 for bodies that are not a JSON object.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../src/errorResponse.js';
import { declaresBody, MAX_BODY_BYTES, readJsonBody } from '../src/readBody.js';

const SMALL_LIMIT = 64;

let server: Server;
let port: number;

beforeAll(async () => {
  // "/small" reads with a 64-byte limit, everything else with the default limit.
  server = createServer((req, res) => {
    const limit = req.url === '/small' ? SMALL_LIMIT : undefined;
    readJsonBody(req, limit).then(
      (body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, body }));
      },
      (err: unknown) => {
        if (err instanceof HttpError) {
          res.writeHead(err.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ok: false, type: err.body.type, details: err.body.details }));
        } else {
          res.writeHead(599).end(String(err));
        }
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

/** Sends the chunks one by one (chunked transfer encoding unless a content-length header is given). */
function send(opts: { path?: string; headers?: Record<string, string | number>; chunks?: (string | Buffer)[] }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: opts.path ?? '/', headers: opts.headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> });
        } catch {
          reject(new Error(`not JSON (${res.statusCode}): ${text}`));
        }
      });
    });
    // The server may answer (413) before it has read everything; a write after that is not an error of the test.
    req.on('error', reject);
    const chunks = opts.chunks ?? [];
    const writeNext = (i: number) => {
      if (i >= chunks.length) return void req.end();
      req.write(chunks[i], () => setImmediate(() => writeNext(i + 1)));
    };
    writeNext(0);
  });
}

const json = (body: string, extra: Record<string, string | number> = {}) => ({ 'content-type': 'application/json', ...extra, 'content-length': Buffer.byteLength(body) });

describe('readJsonBody', () => {
  it('parses a JSON object', async () => {
    const body = JSON.stringify({ a: 1, b: { c: [true, null, 'x'] } });
    const r = await send({ headers: json(body), chunks: [body] });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, body: { a: 1, b: { c: [true, null, 'x'] } } });
  });

  it('accepts a charset parameter and any letter case in the media type', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', ' application/json ;charset=UTF-8']) {
      const body = '{"x":1}';
      const r = await send({ headers: { 'content-type': type, 'content-length': body.length }, chunks: [body] });
      expect(r.status, type).toBe(200);
      expect(r.json.body).toEqual({ x: 1 });
    }
  });

  it('treats an empty or blank body as an empty object', async () => {
    expect((await send({ headers: json(''), chunks: [] })).json).toEqual({ ok: true, body: {} });
    expect((await send({ headers: json(' \n\t '), chunks: [' \n\t '] })).json).toEqual({ ok: true, body: {} });
  });

  it('decodes UTF-8 split across chunks', async () => {
    const bytes = Buffer.from(JSON.stringify({ name: 'Zoë 😀 Müller' }), 'utf8');
    const cut = bytes.indexOf(Buffer.from('😀')) + 2; // in the middle of the 4-byte emoji
    const r = await send({ headers: { 'content-type': 'application/json' }, chunks: [bytes.subarray(0, cut), bytes.subarray(cut)] });
    expect(r.status).toBe(200);
    expect(r.json.body).toEqual({ name: 'Zoë 😀 Müller' });
  });

  it('415 without a JSON content type', async () => {
    const variants: Record<string, string>[] = [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/jsonx' }, { 'content-type': 'application/x-www-form-urlencoded' }];
    for (const headers of variants) {
      const r = await send({ headers: { ...headers, 'content-length': 7 }, chunks: ['{"a":1}'] });
      expect(r.status, JSON.stringify(headers)).toBe(415);
      expect(r.json.type).toBe('unsupported_media_type');
    }
  });

  it('reads a request without any body (no content type, no length or length 0) as {}', async () => {
    for (const headers of [{ 'content-length': 0 }, {}] as Record<string, number>[]) {
      const r = await send({ headers, chunks: [] });
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.json.body).toEqual({});
    }
  });

  it('400 for malformed JSON', async () => {
    for (const body of ['{"a":', '{a:1}', "{'a':1}", 'nope', '{"a":1}}']) {
      const r = await send({ headers: json(body), chunks: [body] });
      expect(r.status, body).toBe(400);
      expect(r.json).toMatchObject({ type: 'invalid_json', details: 'the request body is not valid JSON' });
    }
  });

  it('400 for JSON that is not an object', async () => {
    for (const body of ['[]', '[{"a":1}]', 'null', '"text"', '42', 'true']) {
      const r = await send({ headers: json(body), chunks: [body] });
      expect(r.status, body).toBe(400);
      expect(r.json).toMatchObject({ type: 'invalid_json', details: 'the request body must be a JSON object' });
    }
  });

  it('accepts a body of exactly the limit', async () => {
    const body = JSON.stringify({ a: 'x'.repeat(SMALL_LIMIT - 8) });
    expect(Buffer.byteLength(body)).toBe(SMALL_LIMIT);
    const r = await send({ path: '/small', headers: json(body), chunks: [body] });
    expect(r.status).toBe(200);
  });

  it('413 when the declared length is over the limit', async () => {
    const body = JSON.stringify({ a: 'x'.repeat(SMALL_LIMIT - 7) });
    const r = await send({ path: '/small', headers: json(body), chunks: [body] });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ type: 'payload_too_large', details: `the request body must be at most ${SMALL_LIMIT} bytes` });
  });

  it('413 when a streamed body without a length grows over the limit', async () => {
    const r = await send({ path: '/small', headers: { 'content-type': 'application/json' }, chunks: ['{"a":"', 'x'.repeat(40), 'x'.repeat(40), '"}'] });
    expect(r.status).toBe(413);
    expect(r.json.type).toBe('payload_too_large');
  });

  it('the default limit is 256 KiB', async () => {
    expect(MAX_BODY_BYTES).toBe(256 * 1024);
    const over = JSON.stringify({ a: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await send({ headers: json(over), chunks: [over] });
    expect(declared.status).toBe(413);
    const streamed = await send({ headers: { 'content-type': 'application/json' }, chunks: [over.slice(0, 100_000), over.slice(100_000, 200_000), over.slice(200_000)] });
    expect(streamed.status).toBe(413);
    const under = JSON.stringify({ a: 'x'.repeat(MAX_BODY_BYTES - 100) });
    const ok = await send({ headers: json(under), chunks: [under] });
    expect(ok.status).toBe(200);
  });

  it('checks the media type before the size', async () => {
    const r = await send({ path: '/small', headers: { 'content-type': 'text/plain', 'content-length': 1000 }, chunks: ['x'.repeat(1000)] });
    expect(r.status).toBe(415);
  });

  it('works on any readable carrying the request headers', async () => {
    const fake = Object.assign(Readable.from([Buffer.from('{"k":'), Buffer.from('"v"}')]), {
      headers: { 'content-type': 'application/json' },
    }) as unknown as IncomingMessage;
    await expect(readJsonBody(fake)).resolves.toEqual({ k: 'v' });
    const tooBig = Object.assign(Readable.from([Buffer.alloc(40, 0x20), Buffer.alloc(40, 0x20)]), {
      headers: { 'content-type': 'application/json' },
    }) as unknown as IncomingMessage;
    await expect(readJsonBody(tooBig, SMALL_LIMIT)).rejects.toMatchObject({ status: 413 });
  });
});

describe('declaresBody (a DELETE reads its JSON body only when it says it has one)', () => {
  const req = (headers: IncomingHttpHeaders) => ({ headers }) as IncomingMessage;
  it('is true with a non-zero length or a chunked body', () => {
    expect(declaresBody(req({ 'content-type': 'application/json', 'content-length': '17' }))).toBe(true);
    expect(declaresBody(req({ 'transfer-encoding': 'chunked' }))).toBe(true);
  });
  it('is false without either, with length 0, or with only a content type', () => {
    expect(declaresBody(req({}))).toBe(false);
    expect(declaresBody(req({ 'content-length': '0' }))).toBe(false);
    expect(declaresBody(req({ 'content-type': 'application/json' }))).toBe(false);
  });
});
