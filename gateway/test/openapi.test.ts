/**
 * The API reference: the OpenAPI 3.1 documents generated from the route table (valid, one
 * operation per route and no other, schemas in the codec's JSON with protovalidate constraints),
 * and their serving by createGateway: /openapi.json, the Swagger UI page at /docs and its assets.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { create, createFileRegistry, setExtension, type DescService } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FieldOptionsSchema, FileDescriptorProtoSchema, MethodOptionsSchema, OneofOptionsSchema } from '@bufbuild/protobuf/wkt';
import { field as fieldRules, FieldRulesSchema, file_buf_validate_validate } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { createRouterTransport } from '@connectrpc/connect';
import { readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicAuthenticator } from '../src/auth/basicAuth.js';
import { BearerAuthenticator } from '../src/auth/bearerAuth.js';
import { ProjectDirectory } from '../src/auth/projectDirectory.js';
import { discoverServices } from '../src/discoverServices.js';
import { DOCS_CSP, swaggerUiDir } from '../src/openapi/apiDocs.js';
import { buildOpenApi, type OpenApiOptions } from '../src/openapi/buildOpenApi.js';
import type { JsonSchema, OpenApiDocument, OpenApiParameter, OpenApiResponse } from '../src/openapi/jsonSchema.js';
import { originChecker } from '../src/originChecker.js';
import { buildRouteTable, matchRoute, type Listener, type Route } from '../src/routeTable.js';
import { file_passkeyauth_gateway_v1_http, HttpRouteSchema, json_oneof as jsonOneofOption, JsonOneofSchema, route as routeOption } from '../../gen/passkeyauth/gateway/v1/http_pb.js';
import { createGateway } from '../src/server.js';
import { FakeProjectService } from './support.js';

const LISTENERS: Listener[] = ['frontend', 'backend'];
const SERVERS: OpenApiOptions = { servers: { frontend: 'https://{projectID}.auth.example.com/', backend: 'https://backend.example.com' } };

let routes: Route[];
const docs = {} as Record<Listener, OpenApiDocument>;

beforeAll(async () => {
  routes = buildRouteTable(await discoverServices());
  for (const listener of LISTENERS) docs[listener] = buildOpenApi(routes, listener, SERVERS);
});

/** Follows $refs inside the document. */
function deref<T>(doc: OpenApiDocument, value: T | { $ref: string }): T {
  let v: unknown = value;
  while (v && typeof v === 'object' && '$ref' in v) {
    const ref = (v as { $ref: string }).$ref;
    v = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], doc);
    expect(v, ref).toBeDefined();
  }
  return v as T;
}

/** The schema at a dotted JSON path ("passkeyData.aaguidDetails.iconLight") below `schema`. */
function schemaAt(doc: OpenApiDocument, schema: JsonSchema, path: string): JsonSchema {
  return path.split('.').reduce((s, key) => {
    const props = deref<JsonSchema>(doc, s).properties as Record<string, JsonSchema> | undefined;
    expect(props, `properties above ${key}`).toBeDefined();
    expect(Object.keys(props!), path).toContain(key);
    return deref<JsonSchema>(doc, props![key]);
  }, schema);
}

const operation = (listener: Listener, method: string, path: string) => {
  const op = docs[listener].paths[path]?.[method];
  expect(op, `${method} ${path}`).toBeDefined();
  return op!;
};

const okSchema = (listener: Listener, method: string, path: string): JsonSchema => {
  const response = deref<OpenApiResponse>(docs[listener], operation(listener, method, path).responses['200']);
  return deref<JsonSchema>(docs[listener], response.content!['application/json'].schema);
};

const bodySchema = (method: string, path: string): JsonSchema => operation('backend', method, path).requestBody!.content['application/json'].schema;

const param = (listener: Listener, method: string, path: string, name: string): OpenApiParameter => {
  const p = operation(listener, method, path).parameters?.find((x) => x.name === name);
  expect(p, `${name} of ${method} ${path}`).toBeDefined();
  return p!;
};

describe('the generated documents', () => {
  it('are valid OpenAPI 3.1 (swagger-parser)', async () => {
    for (const listener of LISTENERS) {
      expect(docs[listener].openapi).toBe('3.1.0');
      await expect(SwaggerParser.validate(structuredClone(docs[listener]) as never)).resolves.toBeDefined();
    }
  });

  it('document every route of their listener, alias paths included, and nothing else', () => {
    for (const listener of LISTENERS) {
      const expected = routes.filter((r) => r.listener === listener).map((r) => `${r.httpMethod} ${r.template}`);
      const documented = Object.entries(docs[listener].paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      expect(documented.sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThan(0);
    }
    expect(Object.keys(docs.frontend.paths)).toEqual(expect.arrayContaining(['/.well-known/jwks', '/.well-known/jwks.json']));
    expect(Object.keys(docs.backend.paths)).not.toContain('/.well-known/jwks');
  });

  it('every documented operation is served by the gateway on that listener, with its path parameters', () => {
    for (const listener of LISTENERS) {
      for (const [path, ops] of Object.entries(docs[listener].paths)) {
        const templateParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => `${name}-1`);
        for (const [method, op] of Object.entries(ops)) {
          const match = matchRoute(routes, listener, method.toUpperCase(), concrete);
          expect(match.kind, `${listener} ${method} ${path}`).toBe('found');
          const documentedParams = (op.parameters ?? []).filter((p) => p.in === 'path');
          expect(documentedParams.map((p) => p.name)).toEqual(templateParams);
          expect(documentedParams.every((p) => p.required)).toBe(true);
        }
      }
    }
  });

  it('request and response schemas use the interface JSON names', () => {
    expect(Object.keys(schemaAt(docs.backend, bodySchema('post', '/v2/passkey/append/start'), 'clientInformation').properties as object)).toEqual(
      expect.arrayContaining(['remoteAddress', 'userAgent', 'userVerifyingPlatformAuthenticatorAvailable', 'conditionalMediationAvailable']),
    );
    expect(schemaAt(docs.backend, bodySchema('post', '/v2/passkey/append/start'), 'userID')).toMatchObject({ type: 'string', pattern: '^usr-[0-9]{1,30}$' });
    const challenge = okSchema('backend', 'post', '/v2/users/{userID}/challenges');
    expect(Object.keys(challenge.properties as object)).toEqual(['challengeID', 'type', 'identifierValue', 'value', 'expires', 'status']);
    for (const path of ['/v2/passkey/append/finish', '/v2/passkey/login/finish', '/v2/passkey/mediation/finish']) {
      expect(schemaAt(docs.backend, okSchema('backend', 'post', path), 'passkeyData.aaguidDetails.iconLight')).toEqual({ type: 'string' });
      expect(schemaAt(docs.backend, okSchema('backend', 'post', path), 'passkeyData.challengeID')).toEqual({ type: 'string' });
    }
    expect(schemaAt(docs.backend, okSchema('backend', 'post', '/v2/users'), 'userID')).toEqual({ type: 'string' });
    expect(schemaAt(docs.backend, okSchema('backend', 'get', '/v2/identifiers'), 'paging.totalItems')).toEqual({ type: 'integer', format: 'int32' });
  });

  it('path parameters are not part of request bodies', () => {
    const b1 = bodySchema('post', '/v2/users/{userID}/challenges');
    expect(Object.keys(b1.properties as object)).not.toContain('userID');
    const verify = bodySchema('patch', '/v2/users/{userID}/challenges/{challengeID}');
    expect(Object.keys(verify.properties as object)).toEqual(['value']);
    expect(param('backend', 'patch', '/v2/users/{userID}/challenges/{challengeID}', 'challengeID').schema).toEqual({ type: 'string', pattern: '^cha-[0-9]{1,30}$' });
    // GET and DELETE have no body.
    expect(operation('backend', 'get', '/v2/users/{userID}').requestBody).toBeUndefined();
    expect(operation('backend', 'delete', '/v2/users/{userID}').requestBody).toBeUndefined();
  });

  it('int64 is an integer (format int64), never a string', () => {
    expect(schemaAt(docs.backend, okSchema('backend', 'post', '/v2/users/{userID}/challenges'), 'expires')).toEqual({ type: 'integer', format: 'int64' });
    expect(schemaAt(docs.backend, bodySchema('post', '/v2/users/{userID}/challenges'), 'lifetimeSeconds')).toEqual({ type: 'integer', format: 'int64' });
  });

  it('protovalidate `in` rules become enums, and other rules constraints', () => {
    const b1 = bodySchema('post', '/v2/users/{userID}/challenges');
    expect(schemaAt(docs.backend, b1, 'challengeType')).toEqual({ type: 'string', enum: ['email_otp', 'email_link', 'sms_otp'] });
    expect(schemaAt(docs.backend, b1, 'identifierValue')).toEqual({ type: 'string', minLength: 1, maxLength: 320 });
    expect(schemaAt(docs.backend, bodySchema('post', '/v2/passkey/login/start'), 'crossDeviceAuthenticationStrategy')).toEqual({ type: 'string', enum: ['standard', 'minimize', 'maximize'] });
    expect(schemaAt(docs.backend, b1, 'clientInformation.userAgent')).toMatchObject({ minLength: 1 });
  });

  it('required follows protovalidate in requests and always-emitted fields in responses', () => {
    const b1 = bodySchema('post', '/v2/users/{userID}/challenges');
    expect(b1.required).toEqual(['challengeType', 'identifierValue', 'clientInformation']);
    expect(operation('backend', 'post', '/v2/users/{userID}/challenges').requestBody!.required).toBe(true);
    // `optional` fields and message fields may be missing from a response.
    const challenge = okSchema('backend', 'post', '/v2/users/{userID}/challenges');
    expect(challenge.required).toEqual(['challengeID', 'type', 'identifierValue', 'expires', 'status']);
    const finish = okSchema('backend', 'post', '/v2/passkey/append/finish');
    expect(finish.required ?? []).not.toContain('passkeyData');
  });

  it('google.protobuf.Struct fields are free-form objects', () => {
    expect(schemaAt(docs.backend, bodySchema('post', '/v2/users/{userID}/challenges'), 'challengeMetadata')).toMatchObject({ type: 'object', additionalProperties: true });
    expect(schemaAt(docs.backend, okSchema('backend', 'post', '/v2/passkey/append/start'), 'decisionInsights.customData')).toMatchObject({ type: 'object', additionalProperties: true });
  });

  it('a block\'s data: one schema per block type, told apart by blockType, with the fields the web SDKs read', () => {
    const doc = docs.frontend;
    const blockBody = deref<JsonSchema>(doc, okSchema('frontend', 'post', '/v2/auth/signup/init').properties!['blockBody' as never] as JsonSchema);
    expect(Object.keys(blockBody.properties as object)).toEqual(['block', 'authType', 'data', 'alternatives', 'error', 'continueOnOtherDevice']);
    expect(blockBody.required).toEqual(['block', 'authType', 'data', 'alternatives']);
    const data = (blockBody.properties as Record<string, JsonSchema>).data;
    expect(data).toMatchObject({ type: 'object', discriminator: { propertyName: 'blockType' } });
    // Every block type, each named by exactly one schema (const or enum of blockType), with its fields in the JSON's order.
    const fields: Record<string, string[]> = {};
    for (const member of data.oneOf as JsonSchema[]) {
      const schema = deref<JsonSchema>(doc, member);
      const blockType = (schema.properties as Record<string, JsonSchema>).blockType;
      expect(schema.required).toContain('blockType');
      for (const name of (blockType.enum as string[] | undefined) ?? [blockType.const as string]) {
        expect(fields[name], name).toBeUndefined();
        fields[name] = Object.keys(schema.properties as object);
      }
    }
    const verify = ['blockType', 'verificationMethod', 'identifier', 'retryNotBefore', 'error', 'alternativeVerificationMethods', 'isPostLoginVerification'];
    expect(fields).toEqual({
      'signup-init': ['blockType', 'identifiers', 'fullName', 'socialData', 'error'],
      'login-init': ['blockType', 'identifierValue', 'isPhone', 'isPhoneAvailable', 'isEmailAvailable', 'isUsernameAvailable', 'socialData', 'conditionalUIChallenge', 'fieldError'],
      'passkey-append': ['blockType', 'challenge', 'identifierValue', 'identifierType', 'autoSubmit', 'passkeyIconSet', 'variant', 'error'],
      'passkey-verify': ['blockType', 'challenge', 'identifierValue', 'loginHint'],
      'email-verify': verify,
      'phone-verify': verify,
      'passkey-appended': ['blockType'],
      // The session under both names the published web SDKs read (web-core 2.x and 3.x).
      completed: ['blockType', 'shortSession', 'longSession', 'sessionToken', 'refreshToken', 'passkeyOperation'],
    });
    const completed = deref<JsonSchema>(doc, (data.oneOf as JsonSchema[]).at(-1)!);
    expect(completed.required).toEqual(['blockType', 'shortSession', 'longSession', 'sessionToken', 'refreshToken']);
    expect(schemaAt(doc, completed, 'passkeyOperation.ceremonyType')).toEqual({ type: 'string' });
    const signup = deref<JsonSchema>(doc, (data.oneOf as JsonSchema[])[0]);
    const identifier = deref<JsonSchema>(doc, schemaAt(doc, signup, 'identifiers').items as JsonSchema);
    expect(Object.keys(identifier.properties as object)).toEqual(['type', 'identifier', 'error']);
    expect(schemaAt(doc, signup, 'fullName.error.code')).toEqual({ type: 'string' });
    expect(schemaAt(doc, signup, 'socialData.providers')).toEqual({ type: 'array', items: { type: 'string' } });
    // Every Block response of the frontend API (the answer itself, or its processResponse) leads to this BlockBody.
    const blockResponses: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v2/auth/'))) {
      for (const op of Object.values(ops)) {
        const ok = op.responses['200'] && deref<OpenApiResponse>(doc, op.responses['200']).content?.['application/json'].schema;
        if (!ok) continue;
        let props = deref<JsonSchema>(doc, ok).properties as Record<string, JsonSchema>;
        if (props.processResponse) props = deref<JsonSchema>(doc, props.processResponse).properties as Record<string, JsonSchema>;
        expect(props.blockBody, path).toEqual({ $ref: '#/components/schemas/BlockBody' });
        blockResponses.push(path);
      }
    }
    expect(blockResponses.length).toBeGreaterThanOrEqual(15);
  });

  it('GET query parameters: scalar fields, repeated ones as name[]', () => {
    const list = operation('backend', 'get', '/v2/identifiers').parameters!;
    expect(list.map((p) => `${p.in}:${p.name}`)).toEqual(['query:filter[]', 'query:sort', 'query:page', 'query:pageSize']);
    expect(list[0]).toMatchObject({ style: 'form', explode: true, required: false, schema: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 400 } } });
    expect(list[2].schema).toEqual({ type: 'integer', format: 'int32', minimum: 1, maximum: 100000 });
    expect(list[3].schema).toMatchObject({ minimum: 1, maximum: 100 });
    const credentials = operation('backend', 'get', '/v2/users/{userID}/credentials').parameters!;
    expect(credentials.map((p) => `${p.in}:${p.name}`)).toEqual(['path:userID', 'query:sort', 'query:page', 'query:pageSize']);
  });

  it('response_body routes answer the field\'s message; generic_response routes genericRsp', () => {
    expect(operation('backend', 'get', '/v2/users/{userID}/challenges/{challengeID}').responses['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Challenge' } } } });
    for (const path of ['/v2/users/{userID}', '/v2/users/{userID}/identifiers/{identifierID}', '/v2/users/{userID}/credentials/{credentialID}']) {
      expect(operation('backend', 'delete', path).responses['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/genericRsp' } } } });
    }
    expect(docs.backend.components.schemas.genericRsp.required).toEqual(['httpStatusCode', 'message', 'requestData', 'runtime']);
    // A repeated response_body answers a bare array of its messages (the reference's UserSocialAccountList).
    expect(operation('backend', 'get', '/v2/users/{userID}/socialAccounts').responses['200']).toMatchObject({
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/SocialAccount' } } } },
    });
  });

  it('error answers are errorRsp, by status and as the default', () => {
    const errorRsp = docs.backend.components.schemas.errorRsp;
    expect(errorRsp.required).toEqual(['httpStatusCode', 'message', 'requestData', 'runtime', 'error']);
    const error = schemaAt(docs.backend, errorRsp, 'error');
    expect(Object.keys(error.properties as object)).toEqual(['type', 'details', 'validation', 'links']);
    expect(schemaAt(docs.backend, errorRsp, 'error.validation')).toMatchObject({ type: 'array', items: { required: ['field', 'message'] } });
    expect(Object.keys(schemaAt(docs.backend, errorRsp, 'requestData').properties as object)).toEqual(['requestID', 'link']);

    const statuses = (listener: Listener, method: string, path: string) => Object.keys(operation(listener, method, path).responses);
    expect(statuses('backend', 'post', '/v2/users/{userID}/challenges')).toEqual(['200', '400', '401', '404', '409', '413', '415', '429', '503', 'default']);
    expect(statuses('backend', 'get', '/v2/users/{userID}')).toEqual(['200', '400', '401', '404', '429', '503', 'default']);
    expect(statuses('frontend', 'get', '/.well-known/jwks')).toEqual(['200', '400', '404', '429', '503', 'default']);
    for (const listener of LISTENERS) {
      const doc = docs[listener];
      for (const name of ['BadRequest', 'Unauthorized', 'NotFound', 'MethodNotAllowed', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'TooManyRequests', 'ServiceUnavailable', 'Error']) {
        expect(doc.components.responses[name].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/errorRsp' });
      }
      for (const ops of Object.values(doc.paths)) {
        for (const op of Object.values(ops)) {
          for (const [status, response] of Object.entries(op.responses)) {
            if (status.startsWith('2')) continue;
            expect(deref<OpenApiResponse>(doc, response).content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/errorRsp' });
          }
        }
      }
    }
    expect(docs.backend.components.responses.MethodNotAllowed.headers).toHaveProperty('Allow');
    expect(docs.backend.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
  });

  it('auth: Basic on the backend; bearer JWT or X-Corbado-ProjectID on the frontend; none on public routes', () => {
    expect(docs.backend.components.securitySchemes).toEqual({ basicAuth: expect.objectContaining({ type: 'http', scheme: 'basic' }) });
    for (const ops of Object.values(docs.backend.paths)) for (const op of Object.values(ops)) expect(op.security).toEqual([{ basicAuth: [] }]);
    expect(docs.frontend.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(docs.frontend.components.securitySchemes.projectID).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Corbado-ProjectID' });
    expect(operation('frontend', 'get', '/v2/session-config').security).toEqual([{ bearerAuth: [] }, { projectID: [] }]);
    expect(operation('frontend', 'get', '/.well-known/jwks').security).toEqual([]);
    expect(param('frontend', 'get', '/.well-known/jwks', 'X-Corbado-ProjectID')).toMatchObject({ in: 'header', required: false });
  });

  it('servers come from the configured public URLs, a {projectID} host as a variable, and the listener itself', () => {
    expect(docs.frontend.servers).toEqual([
      expect.objectContaining({ url: 'https://{projectID}.auth.example.com', variables: { projectID: { default: 'pro-1' } } }),
      expect.objectContaining({ url: '/' }),
    ]);
    expect(docs.backend.servers.map((s) => s.url)).toEqual(['https://backend.example.com', '/']);
    expect(buildOpenApi(routes, 'backend').servers.map((s) => s.url)).toEqual(['/']);
  });

  it('operation IDs are unique and name the RPC', () => {
    for (const listener of LISTENERS) {
      const ids = Object.values(docs[listener].paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(operation('backend', 'post', '/v2/users/{userID}/challenges')).toMatchObject({
      operationId: 'ChallengeService_CreateChallenge',
      summary: 'Create challenge',
      tags: ['ChallengeService'],
    });
  });
});

/**
 * A service built here from a FileDescriptorProto: one message used in a request and in a
 * response, recursion, a map, and rules on a repeated field.
 *
 *   message Pair { string key = 1 [(buf.validate.field).string.min_len = 1]; optional int64 count = 2; Pair next = 3; }
 *   message EchoRequest { string id = 1 [pattern "^x-[0-9]+$"]; repeated Pair pairs = 2 [repeated.min_items = 1]; string note = 3; }
 *   message EchoResponse { Pair pair = 1; repeated string tags = 2; map<string, int32> counts = 3; }
 *   service EchoService { rpc Echo(EchoRequest) returns (EchoResponse) { route: POST /v2/echo/{id}, basic } }
 */
function echoService(): DescService {
  const withRules = (init: Parameters<typeof create<typeof FieldRulesSchema>>[1]) => {
    const options = create(FieldOptionsSchema);
    setExtension(options, fieldRules, create(FieldRulesSchema, init));
    return options;
  };
  const routeOptions = create(MethodOptionsSchema);
  setExtension(routeOptions, routeOption, create(HttpRouteSchema, { method: 'POST', path: '/v2/echo/{id}', auth: 'basic' }));
  const file = create(FileDescriptorProtoSchema, {
    name: 'test/v1/echo.proto',
    package: 'test.v1',
    syntax: 'proto3',
    dependency: ['buf/validate/validate.proto', 'passkeyauth/gateway/v1/http.proto'],
    messageType: [
      {
        name: 'Pair',
        field: [
          { name: 'key', number: 1, type: Type.STRING, label: Label.OPTIONAL, jsonName: 'key', options: withRules({ type: { case: 'string', value: { minLen: 1n } } }) },
          { name: 'count', number: 2, type: Type.INT64, label: Label.OPTIONAL, jsonName: 'count', proto3Optional: true, oneofIndex: 0 },
          { name: 'next', number: 3, type: Type.MESSAGE, typeName: '.test.v1.Pair', label: Label.OPTIONAL, jsonName: 'next' },
        ],
        oneofDecl: [{ name: '_count' }],
      },
      {
        name: 'EchoRequest',
        field: [
          { name: 'id', number: 1, type: Type.STRING, label: Label.OPTIONAL, jsonName: 'id', options: withRules({ type: { case: 'string', value: { pattern: '^x-[0-9]+$' } } }) },
          { name: 'pairs', number: 2, type: Type.MESSAGE, typeName: '.test.v1.Pair', label: Label.REPEATED, jsonName: 'pairs', options: withRules({ type: { case: 'repeated', value: { minItems: 1n } } }) },
          { name: 'note', number: 3, type: Type.STRING, label: Label.OPTIONAL, jsonName: 'note' },
        ],
      },
      {
        name: 'EchoResponse',
        field: [
          { name: 'pair', number: 1, type: Type.MESSAGE, typeName: '.test.v1.Pair', label: Label.OPTIONAL, jsonName: 'pair' },
          { name: 'tags', number: 2, type: Type.STRING, label: Label.REPEATED, jsonName: 'tags' },
          { name: 'counts', number: 3, type: Type.MESSAGE, typeName: '.test.v1.EchoResponse.CountsEntry', label: Label.REPEATED, jsonName: 'counts' },
        ],
        nestedType: [
          {
            name: 'CountsEntry',
            field: [
              { name: 'key', number: 1, type: Type.STRING, label: Label.OPTIONAL, jsonName: 'key' },
              { name: 'value', number: 2, type: Type.INT32, label: Label.OPTIONAL, jsonName: 'value' },
            ],
            options: { mapEntry: true },
          },
        ],
      },
    ],
    service: [{ name: 'EchoService', method: [{ name: 'Echo', inputType: '.test.v1.EchoRequest', outputType: '.test.v1.EchoResponse', options: routeOptions }] }],
  });
  const known = [file_buf_validate_validate, file_passkeyauth_gateway_v1_http];
  const registry = createFileRegistry(file, (name) => known.find((f) => f.name === name.replace(/\.proto$/, '')) ?? known.flatMap((f) => f.dependencies).find((f) => `${f.name}.proto` === name));
  return registry.getService('test.v1.EchoService')!;
}

/**
 * A service whose request or response (`inRequest`) holds a json_oneof over one member message Kind
 * (`{ string kind = 1 [const "a"?] }`), the discriminator "kind".
 *
 *   message Kind { string kind = 1; }   message Holder { oneof pick { option json_oneof = {name: "data", discriminator: "kind"}; Kind a = 1; } }
 */
function oneofService(inRequest: boolean, withConst: boolean): DescService {
  const kindOptions = create(FieldOptionsSchema);
  if (withConst) setExtension(kindOptions, fieldRules, create(FieldRulesSchema, { type: { case: 'string', value: { const: 'a' } } }));
  const oneofOptions = create(OneofOptionsSchema);
  setExtension(oneofOptions, jsonOneofOption, create(JsonOneofSchema, { name: 'data', discriminator: 'kind' }));
  const routeOptions = create(MethodOptionsSchema);
  setExtension(routeOptions, routeOption, create(HttpRouteSchema, { method: 'POST', path: '/v2/pick', auth: 'basic' }));
  const file = create(FileDescriptorProtoSchema, {
    name: 'test/v1/pick.proto',
    package: 'test.v1',
    syntax: 'proto3',
    dependency: ['buf/validate/validate.proto', 'passkeyauth/gateway/v1/http.proto'],
    messageType: [
      { name: 'Kind', field: [{ name: 'kind', number: 1, type: Type.STRING, label: Label.OPTIONAL, jsonName: 'kind', options: kindOptions }] },
      { name: 'Holder', field: [{ name: 'a', number: 1, type: Type.MESSAGE, typeName: '.test.v1.Kind', label: Label.OPTIONAL, jsonName: 'a', oneofIndex: 0 }], oneofDecl: [{ name: 'pick', options: oneofOptions }] },
      { name: 'Empty', field: [] },
    ],
    service: [{ name: 'PickService', method: [{ name: 'Pick', inputType: inRequest ? '.test.v1.Holder' : '.test.v1.Empty', outputType: inRequest ? '.test.v1.Empty' : '.test.v1.Holder', options: routeOptions }] }],
  });
  const known = [file_buf_validate_validate, file_passkeyauth_gateway_v1_http];
  const registry = createFileRegistry(file, (name) => known.find((f) => f.name === name.replace(/\.proto$/, '')) ?? known.flatMap((f) => f.dependencies).find((f) => `${f.name}.proto` === name));
  return registry.getService('test.v1.PickService')!;
}

describe('a json_oneof in a synthetic service', () => {
  it('in a response: one property, oneOf its member messages with the discriminator and its const', () => {
    const doc = buildOpenApi(buildRouteTable([oneofService(false, true)]), 'backend');
    expect(doc.components.schemas.Holder.properties).toEqual({ data: expect.objectContaining({ type: 'object', oneOf: [{ $ref: '#/components/schemas/Kind' }], discriminator: { propertyName: 'kind' } }) });
    expect(doc.components.schemas.Kind.properties).toEqual({ kind: { type: 'string', const: 'a' } });
  });

  it('in a request, or with a member that does not name its discriminator value: the document is refused', () => {
    expect(() => buildOpenApi(buildRouteTable([oneofService(true, true)]), 'backend')).toThrow(/response messages only/);
    expect(() => buildOpenApi(buildRouteTable([oneofService(false, false)]), 'backend')).toThrow(/needs a const or in rule/);
  });
});

describe('schemas of a synthetic service', () => {
  let doc: OpenApiDocument;
  beforeAll(() => {
    doc = buildOpenApi(buildRouteTable([echoService()]), 'backend');
  });

  it('is valid', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('a message in requests and responses gets a request variant <Name>Input with the rules', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Pair', 'PairInput', 'EchoResponse']));
    expect(doc.components.schemas.PairInput).toMatchObject({ required: ['key'], properties: { key: { type: 'string', minLength: 1 }, next: { $ref: '#/components/schemas/PairInput' } } });
    // Responses: rules are not promised, implicit fields are always present, `optional` ones may be missing.
    expect(doc.components.schemas.Pair).toMatchObject({ required: ['key'], properties: { key: { type: 'string' }, count: { type: 'integer', format: 'int64' }, next: { $ref: '#/components/schemas/Pair' } } });
  });

  it('repeated rules, maps and the body without its path parameter', () => {
    const op = doc.paths['/v2/echo/{id}'].post;
    expect(op.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^x-[0-9]+$' } }]);
    const body = op.requestBody!.content['application/json'].schema;
    expect(body.properties).toEqual({ pairs: { type: 'array', items: { $ref: '#/components/schemas/PairInput' }, minItems: 1 }, note: { type: 'string' } });
    expect(body.required).toEqual(['pairs']);
    expect(doc.components.schemas.EchoResponse).toMatchObject({
      required: ['tags', 'counts'],
      properties: { pair: { $ref: '#/components/schemas/Pair' }, tags: { type: 'array', items: { type: 'string' } }, counts: { type: 'object', additionalProperties: { type: 'integer', format: 'int32' } } },
    });
  });
});

describe('serving on both listeners of createGateway', () => {
  let servers: Record<Listener, Server>;
  const ports = {} as Record<Listener, number>;

  beforeAll(async () => {
    const projects = new FakeProjectService();
    const client = projects.client();
    const directory = new ProjectDirectory(client);
    const none = createRouterTransport(() => undefined);
    servers = createGateway({
      routes,
      upstreams: { ceremony: none, challenge: none, connect: none, events: none },
      basic: new BasicAuthenticator(client),
      bearer: new BearerAuthenticator(directory),
      directory,
      originAllowedAnywhere: originChecker(client),
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
      ready: async () => true,
      upstreamTimeoutMs: 1000,
      trustForwardedFor: false,
      openApi: SERVERS,
    });
    for (const listener of LISTENERS) {
      const s = servers[listener];
      ports[listener] = await new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
    }
  });

  afterAll(async () => {
    for (const s of Object.values(servers ?? {})) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  function get(listener: Listener, path: string, method = 'GET'): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: ports[listener], method, path, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  for (const listener of LISTENERS) {
    describe(listener, () => {
      it('GET /openapi.json answers that listener\'s document', async () => {
        const r = await get(listener, '/openapi.json');
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe('application/json');
        expect(JSON.parse(r.body.toString('utf8'))).toEqual(JSON.parse(JSON.stringify(docs[listener])));
      });

      it('GET /docs answers the reference page with a self-only Content-Security-Policy', async () => {
        const r = await get(listener, '/docs');
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(r.headers['content-security-policy']).toBe(DOCS_CSP);
        expect(DOCS_CSP).toContain("default-src 'none'");
        expect(DOCS_CSP).toContain("script-src 'self';");
        expect(DOCS_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
        const html = r.body.toString('utf8');
        expect(html).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
        expect(html).toContain('<link rel="stylesheet" href="docs/swagger-ui.css">');
        // Nothing from elsewhere, and no inline script.
        expect(html).not.toMatch(/https?:\/\//);
        expect(html).not.toMatch(/<script>/);
        const init = await get(listener, '/docs/init.js');
        expect(init.status).toBe(200);
        expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
        expect(init.body.toString('utf8')).toContain("url: 'openapi.json'");
      });

      it('serves Swagger UI\'s files from the installed swagger-ui-dist', async () => {
        const css = await get(listener, '/docs/swagger-ui.css');
        expect(css.status).toBe(200);
        expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
        expect(css.headers['x-content-type-options']).toBe('nosniff');
        expect(css.body.equals(readFileSync(join(swaggerUiDir(), 'swagger-ui.css')))).toBe(true);
        const js = await get(listener, '/docs/swagger-ui-bundle.js');
        expect(js.status).toBe(200);
        expect(js.body.length).toBeGreaterThan(100_000);
      });

      it('serves nothing else of the package, and only for GET', async () => {
        for (const path of ['/docs/package.json', '/docs/index.html', '/docs/swagger-initializer.js', '/docs/..%2Fpackage.json', '/docs/swagger-ui.css.map', '/docsswagger-ui.css', '/openapi.json/', '/docs/init.js/']) {
          const r = await get(listener, path);
          expect(r.status, path).toBe(404);
          expect(JSON.parse(r.body.toString('utf8')).error.type).toBe('route_not_found');
        }
        expect((await get(listener, '/openapi.json', 'POST')).status).toBe(404);
        const slash = await get(listener, '/docs/');
        expect(slash.status).toBe(301);
        expect(slash.headers.location).toBe('../docs');
      });
    });
  }
});
