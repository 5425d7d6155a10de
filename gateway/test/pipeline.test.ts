/**
 * The request pipeline's pure steps (server.ts composes them; gateway.test.ts runs them over
 * HTTP): match, the internal headers of the call, the answer body, the error an exception answers.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { IncomingMessage } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { CreateChallengeResponseSchema } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import type { Caller } from '../src/auth/authenticator.js';
import type { ProjectInfo } from '../src/auth/projectDirectory.js';
import { discoverServices } from '../src/discoverServices.js';
import { HttpError } from '../src/errorResponse.js';
import { JsonShapeError } from '../src/jsonCodec.js';
import { internalHeaders } from '../src/pipeline/callService.js';
import { clientAddress } from '../src/pipeline/clientAddress.js';
import { findRoute } from '../src/pipeline/findRoute.js';
import { answerBody, httpErrorOf } from '../src/pipeline/respond.js';
import { buildRouteTable, type Route } from '../src/routeTable.js';

let routes: Route[];

beforeAll(async () => {
  routes = buildRouteTable(await discoverServices());
});

function request(headers: Record<string, string>, remoteAddress = '10.0.0.9'): IncomingMessage {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

function thrown(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error('expected an HttpError');
}

const PROJECT: ProjectInfo = { projectId: 'pro-123', frontendApiUrl: 'https://pro-123.example.com', origins: [], keys: [] };

describe('findRoute', () => {
  it('answers the route and its decoded path parameters', () => {
    const { route, params } = findRoute(routes, 'backend', 'POST', '/v2/users/usr-1%2Fx/challenges');
    expect(`${route.httpMethod} ${route.template}`).toBe('POST /v2/users/{userID}/challenges');
    expect(params).toEqual({ userID: 'usr-1/x' });
  });

  it('refuses an unknown path with 404 and a known one with another method with 405 and Allow', () => {
    expect(thrown(() => findRoute(routes, 'backend', 'GET', '/v2/nothing')).status).toBe(404);
    // Backend routes are not served on the frontend listener.
    expect(thrown(() => findRoute(routes, 'frontend', 'POST', '/v2/users/usr-1/challenges')).status).toBe(404);
    const err = thrown(() => findRoute(routes, 'backend', 'PUT', '/v2/users/usr-1/challenges/cha-1'));
    expect(err.status).toBe(405);
    expect(err.body.type).toBe('method_not_allowed');
    expect(err.headers.allow?.split(', ').sort()).toEqual(['GET', 'PATCH']);
  });
});

describe('internalHeaders', () => {
  it('names the request, the client address and the project; a bounded user agent', () => {
    const caller: Caller = { projectId: 'pro-123', project: null };
    expect(internalHeaders(request({ 'user-agent': 'x'.repeat(2000) }), 'req-1', '10.0.0.9', caller)).toEqual({
      'x-request-id': 'req-1',
      'x-passkeyauth-client-address': '10.0.0.9',
      'x-passkeyauth-project-id': 'pro-123',
      'x-passkeyauth-user-agent': 'x'.repeat(1024),
    });
  });

  it("adds the verified token's identity, never a client's own x-passkeyauth- headers", () => {
    const caller: Caller = {
      projectId: 'pro-123',
      project: PROJECT,
      principal: { projectId: 'pro-123', project: PROJECT, kind: 'session', claims: { sub: 'usr-1', sid: 'ses-1' } },
    };
    const forged = request({ 'x-passkeyauth-user-id': 'usr-666', 'x-passkeyauth-project-id': 'pro-666' });
    expect(internalHeaders(forged, 'req-1', '10.0.0.9', caller)).toEqual({
      'x-request-id': 'req-1',
      'x-passkeyauth-client-address': '10.0.0.9',
      'x-passkeyauth-token-kind': 'session',
      'x-passkeyauth-user-id': 'usr-1',
      'x-passkeyauth-session-id': 'ses-1',
      'x-passkeyauth-project-id': 'pro-123',
    });
  });
});

describe('clientAddress', () => {
  it('is the socket peer unless a trusted proxy forwards the address', () => {
    const req = request({ 'x-forwarded-for': ' 203.0.113.7 , 10.0.0.1' });
    expect(clientAddress(req, false)).toBe('10.0.0.9');
    expect(clientAddress(req, true)).toBe('203.0.113.7');
    expect(clientAddress(request({}), true)).toBe('10.0.0.9');
    expect(clientAddress(request({ 'x-forwarded-for': 'a'.repeat(100) }), true)).toHaveLength(64);
  });
});

describe('answerBody', () => {
  it('answers the response_body field alone, or {} when it is unset', () => {
    const route = findRoute(routes, 'backend', 'POST', '/v2/users/usr-1/challenges').route;
    const response = create(CreateChallengeResponseSchema, { challenge: { challengeId: 'cha-1', status: 'pending' } });
    expect(answerBody(route, response, 'req-1', 0.5)).toMatchObject({ challengeID: 'cha-1', status: 'pending' });
    expect(answerBody(route, create(CreateChallengeResponseSchema), 'req-1', 0.5)).toEqual({});
  });

  it('answers the generic envelope for generic routes', () => {
    const route = routes.find((r) => r.genericResponse)!;
    expect(answerBody(route, create(route.method.output), 'req-1', 0.5)).toEqual({
      httpStatusCode: 200,
      message: 'OK',
      requestData: { requestID: 'req-1', link: '' },
      runtime: 0.5,
    });
  });
});

describe('httpErrorOf', () => {
  it('keeps an HttpError, answers a JSON shape error as 400 validation_error, maps RPC errors', () => {
    const own = new HttpError(413, { type: 'payload_too_large', details: 'big' });
    expect(httpErrorOf(own)).toBe(own);
    const shape = httpErrorOf(new JsonShapeError([{ field: 'userID', message: 'must be a string' }]));
    expect(shape.status).toBe(400);
    expect(shape.body.type).toBe('validation_error');
    expect(httpErrorOf(new ConnectError('gone', Code.NotFound)).status).toBe(404);
    expect(httpErrorOf(new Error('boom')).status).toBe(500);
  });
});
