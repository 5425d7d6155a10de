/**
 * createGateway end to end: the route table discovered from the generated descriptors, real
 * authenticators, and in-memory upstreams (router transports running the services' runtime
 * interceptors) implementing ChallengeService, ProjectService and UserService minimally. Both
 * listeners run on port 0 and are called over real HTTP.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChallengeService, type CreateChallengeRequest } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ErrorInfoSchema } from '../../gen/passkeyauth/common/v1/errors_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService, type ListIdentifiersRequest } from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { projectOf } from '../../services/runtime/context.js';
import { notFound } from '../../services/runtime/errors.js';
import { createMetrics } from '../../services/runtime/metrics.js';
import { serviceInterceptors } from '../../services/runtime/server.js';
import { BasicAuthenticator } from '../src/auth/basicAuth.js';
import { BearerAuthenticator } from '../src/auth/bearerAuth.js';
import { ProjectDirectory } from '../src/auth/projectDirectory.js';
import { discoverServices } from '../src/discoverServices.js';
import { originChecker } from '../src/originChecker.js';
import { buildRouteTable } from '../src/routeTable.js';
import { createGateway } from '../src/server.js';
import { basic, FakeProjectService, newSigningKey, signToken, type SigningKey } from './support.js';

const SECRET_123 = 'corbado1_secret123secret123secret123secret';
const SECRET_456 = 'corbado1_secret456secret456secret456secret';
const URL_123 = 'https://pro-123.frontendapi.example.com';
const APP_ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://other.example.com';
const EXPIRES = 1_893_456_000;
const REQ_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const silent = pino({ level: 'silent' });
const interceptors = () => serviceInterceptors({ logger: silent, metrics: createMetrics('test-upstream') });

interface Seen<T> {
  request: T;
  headers: Headers;
}

const seen = {
  challenge: [] as Seen<CreateChallengeRequest>[],
  listIdentifiers: [] as Seen<ListIdentifiersRequest>[],
};

/** ChallengeService, minimally: a fixed challenge, and a few user IDs that fail in chosen ways. */
const challengeImpl: Partial<ServiceImpl<typeof ChallengeService>> = {
  createChallenge(req, ctx) {
    seen.challenge.push({ request: req, headers: ctx.requestHeader });
    const project = projectOf(ctx);
    if (req.userId === 'usr-404') throw notFound('user_not_found', `user ${req.userId} does not exist`);
    if (req.userId === 'usr-410') {
      throw new ConnectError('challenge expired', Code.FailedPrecondition, undefined, [
        {
          desc: ErrorInfoSchema,
          value: create(ErrorInfoSchema, { type: 'challenge_expired', details: 'the challenge has expired', links: ['https://docs.example.com/errors/challenge_expired'] }),
        },
      ]);
    }
    if (req.userId === 'usr-500') throw new Error(`mongodb://admin:hunter2@db.internal failed for ${project}`);
    return {
      challenge: { challengeId: 'cha-1', type: req.challengeType, identifierValue: req.identifierValue, value: '123456', expires: BigInt(EXPIRES), status: 'pending' },
    };
  },
};

/** UserService, minimally: one user, a list echoing its query, a delete. */
const userImpl: Partial<ServiceImpl<typeof UserService>> = {
  getUser(req) {
    if (req.userId === 'usr-503') throw new ConnectError('connect ECONNREFUSED 10.0.0.7:27017', Code.Unavailable);
    if (req.userId !== 'usr-1') throw notFound('user_not_found', `user ${req.userId} does not exist`);
    return { user: { userId: 'usr-1', status: 'active' } };
  },
  deleteUser() {
    return {};
  },
  listIdentifiers(req, ctx) {
    seen.listIdentifiers.push({ request: req, headers: ctx.requestHeader });
    return {
      identifiers: req.filter.map((f, i) => ({ identifierId: `ide-${i + 1}`, type: 'email', value: f, status: 'verified', userId: 'usr-1' })),
      paging: { page: req.page ?? 1, totalPages: 0, totalItems: req.filter.length },
    };
  },
};

let keyA: SigningKey;
let keyB: SigningKey;
let projects: FakeProjectService;
let readyFlag: boolean | 'throw' = true;
let registry: Registry;
let frontend: Server;
let backend: Server;
let ports: { frontend: number; backend: number };

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([newSigningKey('key-a'), newSigningKey('key-b')]);
  projects = new FakeProjectService();
  projects.add({ projectId: 'pro-123', frontendApiUrl: URL_123, origins: [APP_ORIGIN], keys: [keyA.publicJwk], apiSecret: SECRET_123, useSessionManagement: true });
  projects.add({
    projectId: 'pro-456',
    frontendApiUrl: 'https://pro-456.frontendapi.example.com',
    origins: [OTHER_ORIGIN],
    keys: [keyB.publicJwk],
    apiSecret: SECRET_456,
    useSessionManagement: false,
  });

  const connectTransport = createRouterTransport(
    (router) => {
      router.service(ProjectService, projects.impl());
      router.service(UserService, userImpl);
    },
    { router: { interceptors: interceptors() } },
  );
  const challengeTransport = createRouterTransport((router) => router.service(ChallengeService, challengeImpl), { router: { interceptors: interceptors() } });
  const projectClient = createClient(ProjectService, connectTransport);
  const directory = new ProjectDirectory(projectClient);
  registry = new Registry();
  const servers = createGateway({
    routes: buildRouteTable(await discoverServices()),
    upstreams: { ceremony: createRouterTransport(() => undefined), challenge: challengeTransport, connect: connectTransport, events: createRouterTransport(() => undefined) },
    basic: new BasicAuthenticator(projectClient),
    bearer: new BearerAuthenticator(directory),
    directory,
    originAllowedAnywhere: originChecker(projectClient),
    logger: silent,
    registry,
    ready: async () => {
      if (readyFlag === 'throw') throw new Error('store down');
      return readyFlag;
    },
    upstreamTimeoutMs: 5000,
    trustForwardedFor: false,
    limits: { headersTimeoutMs: 1000, requestTimeoutMs: 1000, maxConnections: 40 },
  });
  frontend = servers.frontend;
  backend = servers.backend;
  const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  ports = { frontend: await listen(frontend), backend: await listen(backend) };
});

afterAll(async () => {
  for (const s of [frontend, backend]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

beforeEach(() => {
  seen.challenge.length = 0;
  seen.listIdentifiers.length = 0;
  readyFlag = true;
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
   
  json: any;
}

function call(listener: 'frontend' | 'backend', method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ host: '127.0.0.1', port: ports[listener], method, path, headers: opts.headers, agent: false }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    // The gateway may answer (413) and close before the whole body is sent.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(opts.body);
  });
}

const jsonHeaders = (auth: string = basic('pro-123', SECRET_123)) => ({ authorization: auth, 'content-type': 'application/json' });

const b1Body = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    challengeType: 'email_otp',
    identifierValue: 'ada@example.com',
    clientInformation: {
      remoteAddress: '::ffff:172.18.0.1',
      userAgent: 'Mozilla/5.0',
      userVerifyingPlatformAuthenticatorAvailable: true,
      conditionalMediationAvailable: false,
    },
    challengeMetadata: { purpose: 'signup' },
    lifetimeSeconds: 600,
    ...over,
  });

/** Checks the reference errorRsp shape and returns its error object. */
function expectErrorRsp(r: Reply, status: number, type: string) {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/json');
  expect(Object.keys(r.json).sort()).toEqual(['error', 'httpStatusCode', 'message', 'requestData', 'runtime']);
  expect(r.json.httpStatusCode).toBe(status);
  expect(typeof r.json.message).toBe('string');
  expect(r.json.requestData).toEqual({ requestID: r.headers['x-request-id'], link: '' });
  expect(typeof r.json.runtime).toBe('number');
  expect(r.json.runtime).toBeGreaterThanOrEqual(0);
  expect(r.json.error.type).toBe(type);
  expect(Array.isArray(r.json.error.validation)).toBe(true);
  expect(Array.isArray(r.json.error.links)).toBe(true);
  return r.json.error as { type: string; details?: string; validation: { field: string; message: string }[]; links: string[] };
}

describe('B1 through the backend listener', () => {
  it('creates a challenge: interface JSON with int64 expires as a number, userID from the path', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-123/challenges', {
      headers: { ...jsonHeaders(), 'x-request-id': 'my-request.1' },
      body: b1Body({ userID: 'usr-999' }),
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['x-request-id']).toBe('my-request.1');
    expect(r.json).toEqual({ challengeID: 'cha-1', type: 'email_otp', identifierValue: 'ada@example.com', value: '123456', expires: EXPIRES, status: 'pending' });
    expect(r.text).toContain(`"expires":${EXPIRES}`);

    expect(seen.challenge).toHaveLength(1);
    const { request: upstream, headers } = seen.challenge[0];
    // The path parameter wins over a body field of the same name.
    expect(upstream.userId).toBe('usr-123');
    expect(upstream.lifetimeSeconds).toBe(600n);
    expect(upstream.challengeMetadata).toEqual({ purpose: 'signup' });
    expect(upstream.clientInformation?.userVerifyingPlatformAuthenticatorAvailable).toBe(true);
    expect(upstream.clientInformation?.conditionalMediationAvailable).toBe(false);
    expect(headers.get('x-passkeyauth-project-id')).toBe('pro-123');
    expect(headers.get('x-request-id')).toBe('my-request.1');
  });

  it('decodes a percent-encoded path parameter', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-%31%32/challenges', { headers: jsonHeaders(), body: b1Body() });
    expect(r.status).toBe(200);
    expect(seen.challenge[0].request.userId).toBe('usr-12');
  });

  it('renders a service validation error with JSON field paths (protovalidate upstream)', async () => {
    const r = await call('backend', 'POST', '/v2/users/abc/challenges', {
      headers: jsonHeaders(),
      body: JSON.stringify({ challengeType: 'carrier_pigeon', identifierValue: 'ada@example.com', clientInformation: { remoteAddress: '1.2.3.4', userAgent: '' } }),
    });
    const error = expectErrorRsp(r, 400, 'validation_error');
    expect(r.json.message).toBe('Bad Request');
    expect(error.validation.map((v) => v.field).sort()).toEqual([
      'challengeType',
      'clientInformation.conditionalMediationAvailable',
      'clientInformation.userAgent',
      'clientInformation.userVerifyingPlatformAuthenticatorAvailable',
      'userID',
    ]);
    for (const v of error.validation) expect(v.message.length).toBeGreaterThan(0);
    expect(seen.challenge).toHaveLength(0);
  });

  it('renders a domain error of the service (404 user_not_found)', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-404/challenges', { headers: jsonHeaders(), body: b1Body() });
    const error = expectErrorRsp(r, 404, 'user_not_found');
    expect(error).toEqual({ type: 'user_not_found', details: 'user usr-404 does not exist', validation: [], links: [] });
    expect(r.json.message).toBe('Not Found');
  });

  it('renders an expired precondition as 410 with its links', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-410/challenges', { headers: jsonHeaders(), body: b1Body() });
    const error = expectErrorRsp(r, 410, 'challenge_expired');
    expect(error.links).toEqual(['https://docs.example.com/errors/challenge_expired']);
    expect(error.details).toBe('the challenge has expired');
    expect(r.json.message).toBe('Gone');
  });

  it('hides the internals of a service failure (500)', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-500/challenges', { headers: jsonHeaders(), body: b1Body() });
    const error = expectErrorRsp(r, 500, 'internal_error');
    expect(error.details).toBe('internal error');
    expect(r.text).not.toMatch(/hunter2|mongodb|db\.internal/);
  });
});

describe('routing and request errors', () => {
  it('404 for an unknown path, in the errorRsp shape', async () => {
    const r = await call('backend', 'GET', '/v2/nothing-here', { headers: { authorization: basic('pro-123', SECRET_123) } });
    const error = expectErrorRsp(r, 404, 'route_not_found');
    expect(error.details).toContain('/v2/nothing-here');
  });

  it('404 for a backend route on the frontend listener', async () => {
    const r = await call('frontend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: b1Body() });
    expectErrorRsp(r, 404, 'route_not_found');
    expect(seen.challenge).toHaveLength(0);
  });

  it('405 with an Allow header for a known path and another method', async () => {
    const r = await call('backend', 'GET', '/v2/users/usr-1/challenges', { headers: { authorization: basic('pro-123', SECRET_123) } });
    expectErrorRsp(r, 405, 'method_not_allowed');
    expect(r.headers.allow).toBe('POST');
    expect(r.json.message).toBe('Method Not Allowed');
    const two = await call('backend', 'POST', '/v2/users/usr-1', { headers: jsonHeaders(), body: '{}' });
    expect(two.status).toBe(405);
    expect(two.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  it('415 for a body that is not JSON', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', {
      headers: { authorization: basic('pro-123', SECRET_123), 'content-type': 'text/plain' },
      body: b1Body(),
    });
    expectErrorRsp(r, 415, 'unsupported_media_type');
    expect(seen.challenge).toHaveLength(0);
  });

  it('413 for a body over 256 KiB, closing the connection', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: b1Body({ challengeMetadata: { big: 'x'.repeat(300 * 1024) } }) });
    expectErrorRsp(r, 413, 'payload_too_large');
    expect(r.headers.connection).toBe('close');
    expect(seen.challenge).toHaveLength(0);
  });

  it('400 for malformed JSON and for a JSON array', async () => {
    expectErrorRsp(await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: '{"challengeType":' }), 400, 'invalid_json');
    expectErrorRsp(await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: '[]' }), 400, 'invalid_json');
  });

  it('400 validation_error naming fields of the wrong JSON type, before calling the service', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', {
      headers: jsonHeaders(),
      body: b1Body({ lifetimeSeconds: '600', clientInformation: { userAgent: 5 } }),
    });
    const error = expectErrorRsp(r, 400, 'validation_error');
    expect(error.validation).toEqual([
      { field: 'clientInformation.userAgent', message: 'must be a string' },
      { field: 'lifetimeSeconds', message: 'must be an integer' },
    ]);
    expect(seen.challenge).toHaveLength(0);
  });

  it('authenticates before reading the body', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(r.status).toBe(401);
  });
});

describe('request IDs', () => {
  it('echoes a well-formed X-Request-ID, also in error bodies', async () => {
    const r = await call('backend', 'GET', '/v2/nothing', { headers: { 'x-request-id': 'abc-123_X.y' } });
    expect(r.headers['x-request-id']).toBe('abc-123_X.y');
    expect(r.json.requestData.requestID).toBe('abc-123_X.y');
  });

  it('generates one when it is missing or malformed', async () => {
    const missing = await call('backend', 'GET', '/v2/nothing');
    expect(missing.headers['x-request-id']).toMatch(REQ_ID);
    expect(missing.json.requestData.requestID).toBe(missing.headers['x-request-id']);
    for (const bad of ['has space', 'semi;colon', 'x'.repeat(129), '<script>']) {
      const r = await call('backend', 'GET', '/v2/nothing', { headers: { 'x-request-id': bad } });
      expect(r.headers['x-request-id'], bad).toMatch(REQ_ID);
    }
    const a = await call('backend', 'GET', '/v2/nothing');
    expect(a.headers['x-request-id']).not.toBe(missing.headers['x-request-id']);
  });

  it('sends the generated ID to the service', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: b1Body() });
    expect(r.headers['x-request-id']).toMatch(REQ_ID);
    expect(seen.challenge[0].headers.get('x-request-id')).toBe(r.headers['x-request-id']);
  });
});

describe('basic authentication on the backend listener', () => {
  it('401 missing_credentials with WWW-Authenticate', async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: { 'content-type': 'application/json' }, body: b1Body() });
    expectErrorRsp(r, 401, 'missing_credentials');
    expect(r.headers['www-authenticate']).toBe('Basic realm="passkeyauth backend API", charset="UTF-8"');
    expect(r.json.message).toBe('Unauthorized');
    expect(seen.challenge).toHaveLength(0);
  });

  it('401 invalid_credentials for a wrong secret and for another project’s secret', async () => {
    for (const auth of [basic('pro-123', 'corbado1_wrong'), basic('pro-456', SECRET_123), basic('pro-999', SECRET_123)]) {
      const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(auth), body: b1Body() });
      expectErrorRsp(r, 401, 'invalid_credentials');
      expect(r.headers['www-authenticate']).toContain('Basic realm=');
    }
    expect(seen.challenge).toHaveLength(0);
  });

  it("scopes the call to the credentials' project", async () => {
    const r = await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(basic('pro-456', SECRET_456)), body: b1Body() });
    expect(r.status).toBe(200);
    expect(seen.challenge[0].headers.get('x-passkeyauth-project-id')).toBe('pro-456');
  });
});

describe('other backend routes', () => {
  it('GET renders the response_body field, leaving unset optional fields out', async () => {
    const r = await call('backend', 'GET', '/v2/users/usr-1', { headers: { authorization: basic('pro-123', SECRET_123) } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ userID: 'usr-1', status: 'active' });
  });

  it('DELETE renders the genericRsp', async () => {
    const r = await call('backend', 'DELETE', '/v2/users/usr-1', { headers: { authorization: basic('pro-123', SECRET_123), 'x-request-id': 'del-1' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ httpStatusCode: 200, message: 'OK', requestData: { requestID: 'del-1', link: '' }, runtime: expect.any(Number) });
  });

  it('maps query parameters, including filter[], and renders implicit fields', async () => {
    const r = await call('backend', 'GET', '/v2/identifiers?filter[]=identifierType:eq:email&filter%5B%5D=status:eq:verified&page=2&unknown=1', {
      headers: { authorization: basic('pro-123', SECRET_123) },
    });
    expect(r.status).toBe(200);
    expect(seen.listIdentifiers[0].request.filter).toEqual(['identifierType:eq:email', 'status:eq:verified']);
    expect(seen.listIdentifiers[0].request.page).toBe(2);
    expect(seen.listIdentifiers[0].request.pageSize).toBeUndefined();
    expect(r.json.paging).toEqual({ page: 2, totalPages: 0, totalItems: 2 });
    expect(r.json.identifiers).toHaveLength(2);
  });

  it('400 for a query value of the wrong type', async () => {
    const r = await call('backend', 'GET', '/v2/identifiers?page=abc', { headers: { authorization: basic('pro-123', SECRET_123) } });
    const error = expectErrorRsp(r, 400, 'validation_error');
    expect(error.validation).toEqual([{ field: 'page', message: 'has an invalid value for its type' }]);
    const range = await call('backend', 'GET', '/v2/identifiers?pageSize=1000', { headers: { authorization: basic('pro-123', SECRET_123) } });
    expect(expectErrorRsp(range, 400, 'validation_error').validation.map((v) => v.field)).toEqual(['pageSize']);
  });

  it('503 service_unavailable when a service reports an outage, without its message', async () => {
    const r = await call('backend', 'GET', '/v2/users/usr-503', { headers: { authorization: basic('pro-123', SECRET_123) } });
    expectErrorRsp(r, 503, 'service_unavailable');
    expect(r.text).not.toContain('10.0.0.7');
  });
});

describe('CORS on the frontend listener', () => {
  it('answers a preflight from an allowed origin with 204 and the CORS headers', async () => {
    const r = await call('frontend', 'OPTIONS', '/v2/session-config', {
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-corbado-projectid' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(r.headers['access-control-allow-credentials']).toBe('true');
    expect(r.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
    expect(r.headers['access-control-allow-headers']?.split(', ')).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-corbado-projectid', 'x-corbado-process-id']));
    expect(r.headers['access-control-expose-headers']).toBe('x-request-id');
    expect(r.headers.vary).toBe('Origin');
    expect(r.text).toBe('');
  });

  it('allows the request headers of the web SDK’s SessionService on /v2/me (cache-control, pragma, expires)', async () => {
    // @corbado/web-core 3.5.0 SessionService: GET /v2/me, /v2/me/passkeys, POST /v2/me/refresh, /v2/me/logout.
    const sessionServiceHeaders = ['authorization', 'cache-control', 'content-type', 'expires', 'pragma', 'x-corbado-client-timezone', 'x-corbado-flags', 'x-corbado-sdk'];
    const r = await call('frontend', 'OPTIONS', '/v2/me', {
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': sessionServiceHeaders.join(',') },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(r.headers['access-control-allow-headers']?.split(', ')).toEqual(expect.arrayContaining(sessionServiceHeaders));
  });

  it('refuses a preflight from an origin no project allows (403, no CORS headers)', async () => {
    const r = await call('frontend', 'OPTIONS', '/v2/session-config', { headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' } });
    expectErrorRsp(r, 403, 'cors_origin_not_allowed');
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('checks a preflight against the project in the host when there is one', async () => {
    const own = await call('frontend', 'OPTIONS', '/v2/session-config', { headers: { host: 'pro-123.localhost', origin: APP_ORIGIN } });
    expect(own.status).toBe(204);
    // Allowed by pro-456, but the host names pro-123.
    const foreign = await call('frontend', 'OPTIONS', '/v2/session-config', { headers: { host: 'pro-123.localhost', origin: OTHER_ORIGIN } });
    expectErrorRsp(foreign, 403, 'cors_origin_not_allowed');
    // Without a host project, any project's origin passes the preflight.
    expect((await call('frontend', 'OPTIONS', '/v2/session-config', { headers: { origin: OTHER_ORIGIN } })).status).toBe(204);
  });

  it('preflight errors: no Origin is 400, an unknown path is 404', async () => {
    expectErrorRsp(await call('frontend', 'OPTIONS', '/v2/session-config'), 400, 'cors_origin_missing');
    expectErrorRsp(await call('frontend', 'OPTIONS', '/v2/nothing', { headers: { origin: APP_ORIGIN } }), 404, 'route_not_found');
  });

  it('the backend listener does not answer preflights', async () => {
    const r = await call('backend', 'OPTIONS', '/v2/users', { headers: { origin: APP_ORIGIN } });
    expect(r.status).toBe(405);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('/v2/session-config (bearer, client)', () => {
  it('answers with X-Corbado-ProjectID, adding CORS headers for the project’s own origin', async () => {
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { 'x-corbado-projectid': 'pro-123', origin: APP_ORIGIN } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ useSessionManagement: true, frontendApiUrl: URL_123 });
    expect(r.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(r.headers['access-control-allow-credentials']).toBe('true');
    const upstream = projects.calls.filter((c) => c.method === 'getSessionConfig').at(-1)!;
    expect(upstream.headers.get('x-passkeyauth-project-id')).toBe('pro-123');
  });

  it('renders false booleans (implicit fields are always present)', async () => {
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { 'x-corbado-projectid': 'pro-456' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ useSessionManagement: false, frontendApiUrl: 'https://pro-456.frontendapi.example.com' });
  });

  it('gives no CORS headers to an origin of another project', async () => {
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { 'x-corbado-projectid': 'pro-123', origin: OTHER_ORIGIN } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('accepts a real client key and rejects a session token (wrong kind)', async () => {
    const client = await signToken({ key: keyA, aud: 'pro-123', iss: URL_123, kind: 'client' });
    expect((await call('frontend', 'GET', '/v2/session-config', { headers: { authorization: `Bearer ${client}` } })).status).toBe(200);
    const session = await signToken({ key: keyA, aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-1' });
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { authorization: `Bearer ${session}` } });
    expectErrorRsp(r, 401, 'wrong_token_kind');
    expect(r.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('401 without credentials, readable by an origin the named project allows; by nobody when no project is named', async () => {
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { origin: APP_ORIGIN, host: 'pro-123.localhost' } });
    expectErrorRsp(r, 401, 'missing_credentials');
    expect(r.headers['www-authenticate']).toBe('Bearer realm="passkeyauth frontend API"');
    expect(r.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    // The answer belongs to no project: no project's origins may read it.
    const unnamed = await call('frontend', 'GET', '/v2/session-config', { headers: { origin: APP_ORIGIN } });
    expectErrorRsp(unnamed, 401, 'missing_credentials');
    expect(unnamed.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("error answers carry CORS headers only for the request's own project and the exact origin spelling", async () => {
    const other = projects.projects.get('pro-456')!;
    const otherOrigin = other.origins[0];
    expect(otherOrigin).toBeDefined();
    expect(projects.projects.get('pro-123')!.origins).not.toContain(otherOrigin);
    // An origin only another project allows reads nothing of pro-123's answers.
    const foreign = await call('frontend', 'GET', '/v2/session-config', { headers: { origin: otherOrigin, host: 'pro-123.localhost' } });
    expect(foreign.status).toBe(401);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    // Spellings no browser sends match nothing, on answers and on preflights.
    for (const spelling of [APP_ORIGIN.toUpperCase().replace('HTTPS://', 'https://'), `${APP_ORIGIN}/`]) {
      const r = await call('frontend', 'GET', '/v2/session-config', { headers: { origin: spelling, host: 'pro-123.localhost' } });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await call('frontend', 'OPTIONS', '/v2/session-config', { headers: { origin: spelling, 'access-control-request-method': 'GET' } });
      expectErrorRsp(pre, 403, 'cors_origin_not_allowed');
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('401 project_mismatch when the host and the header disagree', async () => {
    const r = await call('frontend', 'GET', '/v2/session-config', { headers: { host: 'pro-456.localhost', 'x-corbado-projectid': 'pro-123' } });
    expectErrorRsp(r, 401, 'project_mismatch');
  });
});

describe('JWKS (public)', () => {
  it('GET /.well-known/jwks with X-Corbado-ProjectID returns the project keys', async () => {
    const r = await call('frontend', 'GET', '/.well-known/jwks', { headers: { 'x-corbado-projectid': 'pro-123' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ keys: [keyA.publicJwk] });
    const upstream = projects.calls.filter((c) => c.method === 'getJwks').at(-1)!;
    expect(upstream.headers.get('x-passkeyauth-project-id')).toBe('pro-123');
  });

  it('GET /.well-known/jwks.json with the project in the host', async () => {
    const r = await call('frontend', 'GET', '/.well-known/jwks.json', { headers: { host: 'pro-123.localhost' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ keys: [keyA.publicJwk] });
    const other = await call('frontend', 'GET', '/.well-known/jwks.json', { headers: { host: 'pro-456.localhost:8080' } });
    expect(other.json).toEqual({ keys: [keyB.publicJwk] });
  });

  it('the published keys verify the project’s tokens', async () => {
    const r = await call('frontend', 'GET', '/.well-known/jwks', { headers: { host: 'pro-123.localhost' } });
    const t = await signToken({ key: keyA, aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-1', extra: { name: 'Ada' } });
    const { payload } = await jwtVerify(t, createLocalJWKSet(r.json), { issuer: URL_123, audience: 'pro-123', algorithms: ['ES256'] });
    expect(payload).toMatchObject({ sub: 'usr-1', name: 'Ada' });
  });

  it('400 project_required without a project, 404 for an unknown project', async () => {
    expectErrorRsp(await call('frontend', 'GET', '/.well-known/jwks'), 400, 'project_required');
    expectErrorRsp(await call('frontend', 'GET', '/.well-known/jwks', { headers: { 'x-corbado-projectid': 'not-a-project' } }), 400, 'project_required');
    expectErrorRsp(await call('frontend', 'GET', '/.well-known/jwks', { headers: { 'x-corbado-projectid': 'pro-999' } }), 404, 'project_not_found');
  });

  it('is not served on the backend listener', async () => {
    expect((await call('backend', 'GET', '/.well-known/jwks', { headers: { 'x-corbado-projectid': 'pro-123' } })).status).toBe(404);
  });
});

describe('operations endpoints', () => {
  for (const listener of ['frontend', 'backend'] as const) {
    it(`${listener}: /healthz and /readyz`, async () => {
      const health = await call(listener, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.json).toEqual({ status: 'ok' });
      expect((await call(listener, 'GET', '/readyz')).json).toEqual({ status: 'ready' });
      readyFlag = false;
      const notReady = await call(listener, 'GET', '/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.json).toEqual({ status: 'not ready' });
      readyFlag = 'throw';
      expect((await call(listener, 'GET', '/readyz')).status).toBe(503);
      // Liveness does not depend on readiness.
      expect((await call(listener, 'GET', '/healthz')).status).toBe(200);
    });
  }

  it('/metrics exposes request latency by listener, route and status', async () => {
    await call('backend', 'POST', '/v2/users/usr-1/challenges', { headers: jsonHeaders(), body: b1Body() });
    await call('backend', 'GET', '/v2/nothing');
    const r = await call('frontend', 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain');
    expect(r.text).toContain('gateway_request_duration_seconds_bucket');
    expect(r.text).toMatch(/gateway_request_duration_seconds_count\{listener="backend",route="POST \/v2\/users\/\{userID\}\/challenges",status="200"\} [1-9]/);
    expect(r.text).toMatch(/gateway_request_duration_seconds_count\{listener="backend",route="unmatched",status="404"\} [1-9]/);
  });

  it('only GET reaches the operations endpoints', async () => {
    expect((await call('backend', 'POST', '/healthz', { headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
  });
});

describe('requests the HTTP parser refuses, slow clients, the connection cap', () => {
  /** Sends raw bytes (optionally in timed pieces) and returns everything the gateway answers. */
  function raw(pieces: (string | number)[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(ports.frontend, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(answer));
      void (async () => {
        for (const piece of pieces) {
          if (typeof piece === 'number') await new Promise((r) => setTimeout(r, piece));
          else if (!socket.destroyed) socket.write(piece);
        }
      })();
    });
  }

  function parsed(answer: string): { status: number; body: Record<string, any> } {
    const [head, body] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), body: JSON.parse(body) as Record<string, any> };
  }

  it('answers oversized headers with 431 errorRsp', async () => {
    const r = parsed(await raw([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ httpStatusCode: 431, message: 'Request Header Fields Too Large', error: { type: 'headers_too_large' } });
    expect(r.body.requestData.requestID).toMatch(/^req-/);
  });

  it('answers Content-Length with Transfer-Encoding, and bad chunking, with 400 errorRsp', async () => {
    const both = parsed(await raw(['POST /v2/session-config HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n']));
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ httpStatusCode: 400, error: { type: 'malformed_request' } });
    const chunks = parsed(await raw(['POST /v2/session-config HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n']));
    expect(chunks.status).toBe(400);
    expect(chunks.body.error.type).toBe('malformed_request');
  });

  it('ends a body trickled byte by byte at the request time-out with 408 errorRsp', async () => {
    const started = Date.now();
    const trickle: (string | number)[] = ['POST /v2/connect/login/init HTTP/1.1\r\nHost: x\r\nX-Corbado-ProjectID: pro-123\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n'];
    for (let i = 0; i < 40; i++) trickle.push(200, ' ');
    const r = parsed(await raw(trickle));
    expect(r.status).toBe(408);
    expect(r.body).toMatchObject({ httpStatusCode: 408, message: 'Request Timeout', error: { type: 'request_timeout' } });
    // Cut off long before the 40 × 200 ms the client meant to take (not a timing bound on the gateway).
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('closes connections past the cap at once, and serves again when they are gone', async () => {
    const open: Socket[] = [];
    for (let i = 0; i < 40; i++) {
      const s = connect(ports.frontend, '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      open.push(s);
    }
    await new Promise((r) => setTimeout(r, 100));
    const extra = connect(ports.frontend, '127.0.0.1');
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      extra.on('error', () => resolve(true));
      setTimeout(() => resolve(false), 3000);
    });
    expect(closed).toBe(true);
    for (const s of open) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await call('frontend', 'GET', '/healthz')).status).toBe(200);
  });
});
