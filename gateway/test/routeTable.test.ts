/**
 * The route table comes from the `passkeyauth.gateway.v1.route` option of each RPC: the real
 * generated descriptors, plus small descriptors built here to reach the start-up checks.
 */
import { create, createFileRegistry, setExtension, type DescService } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
} from '@bufbuild/protobuf/wkt';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChallengeService } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HttpRouteSchema, route as routeOption, type HttpRoute } from '../../gen/passkeyauth/gateway/v1/http_pb.js';
import { discoverServices } from '../src/discoverServices.js';
import { buildRouteTable, matchRoute, type Route } from '../src/routeTable.js';

interface SyntheticMethod {
  name: string;
  route?: Partial<Omit<HttpRoute, '$typeName'>>;
  clientStreaming?: boolean;
}

let fileSeq = 0;
/** A service `test.v1.TestService` whose methods take `Req { user_id (json userID), identifier_id (json identifierID) }`. */
function syntheticService(methods: SyntheticMethod[]): DescService {
  const name = `test/v1/synthetic_${++fileSeq}.proto`;
  const stringField = (fieldName: string, number: number, jsonName: string) => ({
    name: fieldName,
    number,
    jsonName,
    type: FieldDescriptorProto_Type.STRING,
    label: FieldDescriptorProto_Label.OPTIONAL,
  });
  const file = create(FileDescriptorProtoSchema, {
    name,
    package: 'test.v1',
    syntax: 'proto3',
    messageType: [
      { name: 'Req', field: [stringField('user_id', 1, 'userID'), stringField('identifier_id', 2, 'identifierID')] },
      { name: 'Rsp' },
    ],
    service: [
      {
        name: 'TestService',
        method: methods.map((m) => {
          const options = create(MethodOptionsSchema);
          if (m.route) setExtension(options, routeOption, create(HttpRouteSchema, m.route));
          return {
            name: m.name,
            inputType: '.test.v1.Req',
            outputType: '.test.v1.Rsp',
            clientStreaming: m.clientStreaming ?? false,
            options,
          };
        }),
      },
    ],
  });
  const service = createFileRegistry(file, () => undefined).getService('test.v1.TestService');
  if (!service) throw new Error('synthetic service missing');
  return service;
}

describe('buildRouteTable over the generated descriptors', () => {
  let routes: Route[];
  beforeAll(async () => {
    routes = buildRouteTable(await discoverServices());
  });

  const find = (method: string, template: string) => routes.find((r) => r.httpMethod === method && r.template === template);

  it('discovers every generated service', async () => {
    const names = (await discoverServices()).map((s) => s.typeName).sort();
    expect(names).toEqual(
      expect.arrayContaining(['passkeyauth.challenge.v1.ChallengeService', 'passkeyauth.connect.v1.ProjectService', 'passkeyauth.connect.v1.UserService']),
    );
  });

  it('maps B1 to ChallengeService.CreateChallenge on the backend listener with its path parameter', () => {
    const b1 = find('POST', '/v2/users/{userID}/challenges');
    expect(b1).toBeDefined();
    expect(b1!.service.typeName).toBe(ChallengeService.typeName);
    expect(b1!.method.name).toBe('CreateChallenge');
    expect(b1!.auth).toBe('basic');
    expect(b1!.listener).toBe('backend');
    expect(b1!.params).toEqual(['userID']);
    expect(b1!.responseBody).toBe('challenge');
    expect(b1!.genericResponse).toBe(false);
  });

  it('serves bearer and public routes on the frontend listener, with their token kinds', () => {
    const sessionConfig = find('GET', '/v2/session-config');
    expect(sessionConfig).toMatchObject({ auth: 'bearer', listener: 'frontend', tokenKinds: ['client'], params: [] });
    expect(sessionConfig!.method.name).toBe(ProjectService.method.getSessionConfig.name);
    const jwks = find('GET', '/.well-known/jwks');
    expect(jwks).toMatchObject({ auth: 'public', listener: 'frontend' });
  });

  it('adds alias paths as routes of the same RPC', () => {
    const jwks = find('GET', '/.well-known/jwks');
    const alias = find('GET', '/.well-known/jwks.json');
    expect(alias).toBeDefined();
    expect(alias!.method).toBe(jwks!.method);
    expect(alias!.auth).toBe('public');
  });

  it('leaves RPCs without the route option out (internal RPCs)', () => {
    const methods = routes.map((r) => `${r.service.typeName}.${r.method.name}`);
    expect(methods).not.toContain('passkeyauth.connect.v1.ProjectService.AuthenticateBackend');
    expect(methods).not.toContain('passkeyauth.connect.v1.ProjectService.GetProjectPublicInfo');
    expect(methods).not.toContain('passkeyauth.connect.v1.ProjectService.IsOriginAllowed');
    expect(methods).not.toContain('passkeyauth.challenge.v1.ChallengeService.DeleteUserChallenges');
  });

  it('marks generic-response routes', () => {
    const del = find('DELETE', '/v2/users/{userID}');
    expect(del!.genericResponse).toBe(true);
    expect(del!.method.name).toBe(UserService.method.deleteUser.name);
    expect(find('GET', '/v2/users/{userID}')!.genericResponse).toBe(false);
  });

  it('binds two path parameters in order', () => {
    const patch = find('PATCH', '/v2/users/{userID}/identifiers/{identifierID}');
    expect(patch!.params).toEqual(['userID', 'identifierID']);
  });

  describe('matchRoute', () => {
    it('finds a route and decodes its path parameters', () => {
      const m = matchRoute(routes, 'backend', 'POST', '/v2/users/usr-%31%32/challenges');
      expect(m.kind).toBe('found');
      if (m.kind !== 'found') return;
      expect(m.route.method.name).toBe('CreateChallenge');
      expect(m.params).toEqual({ userID: 'usr-12' });
    });

    it('binds both parameters of a two-parameter path', () => {
      const m = matchRoute(routes, 'backend', 'PATCH', '/v2/users/usr-1/identifiers/ide-2');
      expect(m).toMatchObject({ kind: 'found', params: { userID: 'usr-1', identifierID: 'ide-2' } });
    });

    it('a known path with another method is 405 with the allowed methods', () => {
      expect(matchRoute(routes, 'backend', 'GET', '/v2/users/usr-1/challenges')).toEqual({ kind: 'method_not_allowed', allowed: ['POST'] });
      const m = matchRoute(routes, 'backend', 'POST', '/v2/users/usr-1');
      expect(m.kind).toBe('method_not_allowed');
      if (m.kind === 'method_not_allowed') expect([...m.allowed].sort()).toEqual(['DELETE', 'GET', 'PATCH']);
    });

    it('picks the route with the right method among several on one path', () => {
      const get = matchRoute(routes, 'backend', 'GET', '/v2/users/usr-7');
      const del = matchRoute(routes, 'backend', 'DELETE', '/v2/users/usr-7');
      expect(get.kind === 'found' && get.route.method.name).toBe('GetUser');
      expect(del.kind === 'found' && del.route.method.name).toBe('DeleteUser');
    });

    it('an unknown path is 404', () => {
      expect(matchRoute(routes, 'backend', 'GET', '/v2/nothing')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'backend', 'POST', '/v2/users/usr-1/challenges/cha-1/extra')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'backend', 'POST', '/v2/users//challenges')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'backend', 'POST', '/v2/users/usr-1/challenges/')).toEqual({ kind: 'not_found' });
    });

    it('a challenge path with a method it does not serve is 405 with the methods it does', () => {
      const m = matchRoute(routes, 'backend', 'POST', '/v2/users/usr-1/challenges/cha-1');
      expect(m.kind).toBe('method_not_allowed');
      expect(m.kind === 'method_not_allowed' && [...m.allowed].sort()).toEqual(['GET', 'PATCH']);
    });

    it('keeps the listeners apart: backend routes are not found on the frontend and vice versa', () => {
      expect(matchRoute(routes, 'frontend', 'POST', '/v2/users/usr-1/challenges')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'backend', 'GET', '/v2/session-config')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'frontend', 'GET', '/v2/session-config').kind).toBe('found');
    });

    it('treats the dot of a template literally', () => {
      expect(matchRoute(routes, 'frontend', 'GET', '/.well-known/jwks.json').kind).toBe('found');
      expect(matchRoute(routes, 'frontend', 'GET', '/.well-known/jwksXjson')).toEqual({ kind: 'not_found' });
      expect(matchRoute(routes, 'frontend', 'GET', '/Xwell-known/jwks')).toEqual({ kind: 'not_found' });
    });

    it('does not split a parameter on an encoded slash', () => {
      const m = matchRoute(routes, 'backend', 'GET', '/v2/users/usr-1%2Fidentifiers');
      expect(m).toMatchObject({ kind: 'found', params: { userID: 'usr-1/identifiers' } });
      expect(m.kind === 'found' && m.route.method.name).toBe('GetUser');
    });

    it('a malformed percent-encoding in a parameter is 404, not a crash', () => {
      expect(matchRoute(routes, 'backend', 'GET', '/v2/users/%E0%A4%A')).toEqual({ kind: 'not_found' });
    });
  });
});

describe('buildRouteTable start-up checks', () => {
  it('builds routes from a hand-made descriptor, upper-casing the method', () => {
    const routes = buildRouteTable([
      syntheticService([
        { name: 'Get', route: { method: 'get', path: '/t/{userID}', auth: 'bearer', tokenKinds: ['session', 'process'] } },
        { name: 'Internal' },
      ]),
    ]);
    expect(routes).toHaveLength(1);
    expect(routes[0]).toMatchObject({ httpMethod: 'GET', template: '/t/{userID}', params: ['userID'], listener: 'frontend', tokenKinds: ['session', 'process'] });
    expect(matchRoute(routes, 'frontend', 'GET', '/t/usr-1')).toMatchObject({ kind: 'found', params: { userID: 'usr-1' } });
  });

  it('rejects an unknown auth scheme', () => {
    const svc = syntheticService([{ name: 'Bad', route: { method: 'GET', path: '/t', auth: 'cookie' } }]);
    expect(() => buildRouteTable([svc])).toThrow(/unknown auth scheme "cookie"/);
  });

  it('rejects a route on a streaming RPC', () => {
    const svc = syntheticService([{ name: 'Stream', clientStreaming: true, route: { method: 'POST', path: '/t', auth: 'basic' } }]);
    expect(() => buildRouteTable([svc])).toThrow(/only unary RPCs/);
  });

  it('rejects a path parameter that names no field (JSON names are case-sensitive)', () => {
    const svc = syntheticService([{ name: 'Get', route: { method: 'GET', path: '/t/{userId}', auth: 'basic' } }]);
    expect(() => buildRouteTable([svc])).toThrow(/\{userId\} names no field of test\.v1\.Req/);
  });

  it('rejects a parameter named after the proto field name instead of the JSON name', () => {
    const svc = syntheticService([{ name: 'Get', route: { method: 'GET', path: '/t/{identifierId}', auth: 'basic' } }]);
    expect(() => buildRouteTable([svc])).toThrow(/names no field/);
  });

  it('rejects the same method and path twice on one listener, also through an alias path', () => {
    const twice = syntheticService([
      { name: 'A', route: { method: 'POST', path: '/t', auth: 'basic' } },
      { name: 'B', route: { method: 'POST', path: '/t', auth: 'basic' } },
    ]);
    expect(() => buildRouteTable([twice])).toThrow(/duplicate route backend POST \/t/);
    const viaAlias = syntheticService([
      { name: 'A', route: { method: 'GET', path: '/a', auth: 'public' } },
      { name: 'B', route: { method: 'GET', path: '/b', auth: 'public', aliasPaths: ['/a'] } },
    ]);
    expect(() => buildRouteTable([viaAlias])).toThrow(/duplicate route frontend GET \/a/);
  });

  it('allows one path with different methods, and one method and path on both listeners', () => {
    const routes = buildRouteTable([
      syntheticService([
        { name: 'A', route: { method: 'GET', path: '/t', auth: 'basic' } },
        { name: 'B', route: { method: 'DELETE', path: '/t', auth: 'basic' } },
        { name: 'C', route: { method: 'GET', path: '/t', auth: 'public' } },
      ]),
    ]);
    expect(routes.map((r) => `${r.listener} ${r.httpMethod} ${r.method.name}`)).toEqual(['backend GET A', 'backend DELETE B', 'frontend GET C']);
    const m = matchRoute(routes, 'frontend', 'GET', '/t');
    expect(m.kind === 'found' && m.route.method.name).toBe('C');
  });
});
