/**
 * The public-route authenticator (a project named by the host or X-Corbado-ProjectID, which must
 * exist) and the scheme table the pipeline looks authenticators up in.
 */
import type { IncomingMessage } from 'node:http';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../src/auth/authenticator.js';
import { BasicAuthenticator } from '../src/auth/basicAuth.js';
import { BearerAuthenticator } from '../src/auth/bearerAuth.js';
import { createAuthenticators } from '../src/auth/createAuthenticators.js';
import { ProjectDirectory } from '../src/auth/projectDirectory.js';
import { projectNamedBy, PublicAuthenticator, requireNamedProject } from '../src/auth/publicAuth.js';
import { HttpError } from '../src/errorResponse.js';
import type { Route } from '../src/routeTable.js';
import { basic, FakeProjectService, newSigningKey, signToken, type SigningKey } from './support.js';

const URL_123 = 'https://pro-123.frontendapi.example.com';
const SECRET = 'corbado1_secret123secret123secret123secret';
const ROUTE = {} as Route;

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
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

async function rejected(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

describe('requireNamedProject', () => {
  it('takes the host first label, else X-Corbado-ProjectID', () => {
    expect(requireNamedProject('pro-123.auth.example.com', undefined)).toBe('pro-123');
    expect(requireNamedProject('localhost:8080', 'pro-456')).toBe('pro-456');
    expect(requireNamedProject('pro-123.auth.example.com', 'pro-123')).toBe('pro-123');
  });

  it('refuses a host and header naming different projects (400 project_mismatch)', () => {
    const err = thrown(() => requireNamedProject('pro-123.auth.example.com', 'pro-456'));
    expect(err.status).toBe(400);
    expect(err.body.type).toBe('project_mismatch');
  });

  it('refuses a request naming no project, or no project ID (400 project_required)', () => {
    for (const [host, header] of [
      [undefined, undefined],
      ['localhost', undefined],
      ['localhost', ''],
      ['localhost', 'not-a-project'],
      ['localhost', 'pro-'],
      // A one-label host names no project even when it looks like one.
      ['pro-123', undefined],
    ] as const) {
      const err = thrown(() => requireNamedProject(host, header));
      expect(err.status, `${host} ${header}`).toBe(400);
      expect(err.body.type).toBe('project_required');
    }
  });
});

describe('projectNamedBy', () => {
  it('names the project like requireNamedProject, but refuses nothing', () => {
    expect(projectNamedBy('pro-123.auth.example.com', undefined)).toBe('pro-123');
    expect(projectNamedBy('localhost', 'pro-456')).toBe('pro-456');
    // The host wins over a different header (CORS is then checked against the host's project).
    expect(projectNamedBy('pro-123.auth.example.com', 'pro-456')).toBe('pro-123');
    expect(projectNamedBy('localhost', 'not-a-project')).toBeUndefined();
    expect(projectNamedBy('localhost', ['pro-123'])).toBeUndefined();
    expect(projectNamedBy(undefined, undefined)).toBeUndefined();
  });
});

describe('PublicAuthenticator', () => {
  let fake: FakeProjectService;
  let auth: PublicAuthenticator;

  beforeEach(() => {
    fake = new FakeProjectService();
    fake.add({ projectId: 'pro-123', frontendApiUrl: URL_123, origins: ['https://app.example.com'], keys: [], apiSecret: SECRET, useSessionManagement: true });
    auth = new PublicAuthenticator(new ProjectDirectory(fake.client()));
  });

  it('answers the named project with its facts', async () => {
    const caller = await auth.authenticate(request({ host: 'localhost', 'x-corbado-projectid': 'pro-123' }), ROUTE, 'req-1');
    expect(caller.projectId).toBe('pro-123');
    expect(caller.project?.origins).toEqual(['https://app.example.com']);
    expect(caller.principal).toBeUndefined();
  });

  it('answers 404 project_not_found for a project that does not exist', async () => {
    const err = await rejected(auth.authenticate(request({ host: 'pro-999.auth.example.com' }), ROUTE, 'req-1'));
    expect(err.status).toBe(404);
    expect(err.body.type).toBe('project_not_found');
  });

  it('asks the directory nothing for a request that names no project', async () => {
    const err = await rejected(auth.authenticate(request({ host: 'localhost' }), ROUTE, 'req-1'));
    expect(err.body.type).toBe('project_required');
    expect(fake.calls).toHaveLength(0);
  });
});

describe('createAuthenticators', () => {
  let key: SigningKey;
  let fake: FakeProjectService;
  let table: ReturnType<typeof createAuthenticators>;

  beforeAll(async () => {
    key = await newSigningKey('key-a');
  });

  beforeEach(() => {
    fake = new FakeProjectService();
    fake.add({ projectId: 'pro-123', frontendApiUrl: URL_123, origins: [], keys: [key.publicJwk], apiSecret: SECRET, useSessionManagement: true });
    const directory = new ProjectDirectory(fake.client());
    table = createAuthenticators(new BasicAuthenticator(fake.client()), new BearerAuthenticator(directory), directory);
  });

  it('basic: the project the credentials belong to, without its facts', async () => {
    const caller: Caller = await table.basic.authenticate(request({ authorization: basic('pro-123', SECRET) }), ROUTE, 'req-1', '10.0.0.1');
    expect(caller).toEqual({ projectId: 'pro-123', project: null });
  });

  it('basic: counts wrong credentials against the source address', async () => {
    const err = await rejected(table.basic.authenticate(request({ authorization: basic('pro-123', 'wrong') }), ROUTE, 'req-1', '10.0.0.1'));
    expect(err.status).toBe(401);
  });

  it("bearer: the token's project and the verified principal, for the route's token kinds", async () => {
    const token = await signToken({ key, aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-1' });
    const route = { tokenKinds: ['session'] } as unknown as Route;
    const caller = await table.bearer.authenticate(request({ authorization: `Bearer ${token}` }), route, 'req-1', '10.0.0.1');
    expect(caller.projectId).toBe('pro-123');
    expect(caller.project?.projectId).toBe('pro-123');
    expect(caller.principal?.kind).toBe('session');
    expect(caller.principal?.claims?.sub).toBe('usr-1');
    const other = { tokenKinds: ['process'] } as unknown as Route;
    expect((await rejected(table.bearer.authenticate(request({ authorization: `Bearer ${token}` }), other, 'req-1', ''))).body.type).toBe('wrong_token_kind');
  });

  it('public: the PublicAuthenticator', () => {
    expect(table.public).toBeInstanceOf(PublicAuthenticator);
  });
});
