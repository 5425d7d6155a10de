/**
 * The OpenAPI 3.1 document of one listener, generated from the same route table (and so the same
 * proto descriptors) the gateway serves: paths, parameters, bodies and answers in the codec's JSON,
 * auth schemes and the errorRsp answers.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { PROJECT_ID_PATTERN } from '../../../services/runtime/wire.js';
import type { Listener, Route } from '../routeTable.js';
import { ENVELOPE_SCHEMAS, ERROR_RESPONSES, errorResponsesOf, RESPONSE_HEADERS } from './errorSchemas.js';
import { schemaRef, type JsonSchema, type OpenApiDocument, type OpenApiOperation, type OpenApiParameter, type OpenApiResponse } from './jsonSchema.js';
import { SchemaRegistry } from './messageSchemas.js';
import { requiredInRequest, rulesOf } from './validationRules.js';

export interface OpenApiOptions {
  /**
   * Public base URLs of the listeners (e.g. FRONTEND_API_URL, BACKEND_API_URL). A frontend URL may
   * contain `{projectID}`, documented as a server variable. The listener itself ("/") is always listed.
   */
  servers?: Partial<Record<Listener, string>>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const TITLES: Record<Listener, string> = { frontend: 'passkeyauth frontend API', backend: 'passkeyauth backend API' };
const DESCRIPTIONS: Record<Listener, string> = {
  frontend:
    'The API for browsers and apps. Bearer endpoints take a client key, process token or session token (ES256 JWTs) in `Authorization: Bearer`; ' +
    'for the published web SDK, `X-Corbado-ProjectID` may stand in for the client key and `x-corbado-process-id` for the process token. ' +
    'Public endpoints name the project in the host (`<projectID>.<frontend domain>`) or in `X-Corbado-ProjectID`.',
  backend: 'The API for the application\'s server, authenticated with HTTP Basic: the project ID as user name, an API secret as password.',
};
const COMMON_DESCRIPTION =
  ' Every error is an `errorRsp`; an unknown path answers 404 `route_not_found` and a known path with another method 405 `method_not_allowed` with `Allow`.' +
  ' Generated from the proto descriptors that drive the gateway.';

const TOKEN_KIND_NAMES: Record<string, string> = { client: 'client key', process: 'process token', session: 'session token', refresh: 'refresh token' };

export function buildOpenApi(allRoutes: Route[], listener: Listener, options: OpenApiOptions = {}): OpenApiDocument {
  const routes = allRoutes.filter((r) => r.listener === listener);
  const registry = new SchemaRegistry(
    routes.map((r) => r.method.input),
    routes.flatMap((r) => {
      const body = responseBodyMessage(r);
      return body ? [body] : [];
    }),
    Object.keys(ENVELOPE_SCHEMAS),
  );

  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  const tags = new Map<string, string>();
  for (const route of routes) {
    const tag = route.service.name;
    tags.set(tag, `Endpoints of \`${route.service.typeName}\`.`);
    const operation = buildOperation(route, registry, uniqueId(`${route.service.name}_${route.method.name}`, operationIds), tag);
    (paths[route.template] ??= {})[route.httpMethod.toLowerCase()] = operation;
  }

  return {
    openapi: '3.1.0',
    info: { title: TITLES[listener], version: 'v2', description: DESCRIPTIONS[listener] + COMMON_DESCRIPTION },
    servers: servers(listener, options.servers?.[listener]),
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...ENVELOPE_SCHEMAS, ...sortedByKey(registry.schemas) },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, { response }]) => [name, response])),
      headers: RESPONSE_HEADERS,
      securitySchemes: securitySchemes(listener, routes),
    },
  };
}

function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function servers(listener: Listener, publicUrl: string | undefined): OpenApiDocument['servers'] {
  const list: OpenApiDocument['servers'] = [];
  if (publicUrl) {
    const url = publicUrl.replace(/\/+$/, '');
    if (url.includes('{projectID}')) {
      list.push({
        url,
        // No variable description: the OpenAPI 3.1 schema that validators bundle misspells it.
        description: `The ${listener} API of one project ({projectID}: the project ID)`,
        variables: { projectID: { default: 'pro-1' } },
      });
    } else list.push({ url, description: `The ${listener} API` });
  }
  list.push({ url: '/', description: 'The listener serving this document' });
  return list;
}

function securitySchemes(listener: Listener, routes: Route[]): Record<string, Record<string, string>> {
  if (listener === 'backend') {
    return { basicAuth: { type: 'http', scheme: 'basic', description: 'Project ID as the user name, API secret as the password.' } };
  }
  const schemes: Record<string, Record<string, string>> = {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A client key, process token or session token (ES256 JWT), as each endpoint says.' },
    projectID: { type: 'apiKey', in: 'header', name: 'X-Corbado-ProjectID', description: 'The project ID, in place of a client key (web SDK compatibility).' },
  };
  if (routes.some((r) => r.tokenKinds.includes('process'))) {
    schemes.processID = { type: 'apiKey', in: 'header', name: 'x-corbado-process-id', description: 'The process token, in place of Authorization (web SDK compatibility).' };
  }
  return schemes;
}

function security(route: Route): Record<string, string[]>[] {
  if (route.auth === 'public') return [];
  if (route.auth === 'basic') return [{ basicAuth: [] }];
  const alternatives: Record<string, string[]>[] = [{ bearerAuth: [] }];
  if (route.tokenKinds.includes('client')) alternatives.push({ projectID: [] });
  if (route.tokenKinds.includes('process')) alternatives.push({ processID: [] });
  return alternatives;
}

/** The message rendered as the 200 body (the output, or its response_body field); none for genericRsp. */
function responseBodyMessage(route: Route): DescMessage | undefined {
  if (route.genericResponse || route.noContent) return undefined;
  if (!route.responseBody) return route.method.output;
  const field = route.method.output.fields.find((f) => f.localName === route.responseBody || f.name === route.responseBody);
  if (field?.fieldKind === 'list' && field.listKind === 'message') return field.message;
  if (!field || field.fieldKind !== 'message') throw new Error(`${route.httpMethod} ${route.template}: response_body "${route.responseBody}" is not a message field`);
  return field.message;
}

/** Whether the 200 body is a JSON array of the response_body field's messages (a repeated field). */
function answersArray(route: Route): boolean {
  const field = route.method.output.fields.find((f) => f.localName === route.responseBody || f.name === route.responseBody);
  return !!route.responseBody && field?.fieldKind === 'list';
}

function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function buildOperation(route: Route, registry: SchemaRegistry, operationId: string, tag: string): OpenApiOperation {
  const input = route.method.input;
  const pathParams = new Set(route.params);
  const fieldOf = (jsonName: string) => input.fields.find((f) => f.jsonName === jsonName) as DescField;

  const parameters: OpenApiParameter[] = route.params.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: registry.fieldSchema(fieldOf(name), 'request'),
  }));
  const hasBody = BODY_METHODS.has(route.httpMethod);
  if (!hasBody) parameters.push(...queryParameters(input, pathParams, registry));
  if (route.auth === 'public') {
    parameters.push({
      name: 'X-Corbado-ProjectID',
      in: 'header',
      required: false,
      description: 'The project, unless the host names it (`<projectID>.<frontend domain>`).',
      schema: { type: 'string', pattern: PROJECT_ID_PATTERN },
    });
  }

  let requestBody: OpenApiOperation['requestBody'];
  if (hasBody) {
    // Path parameters win over body fields of the same name, so the body leaves them out.
    const schema = registry.objectSchema(input, 'request', pathParams);
    requestBody = { required: Array.isArray(schema.required) && schema.required.length > 0, content: { 'application/json': { schema } } };
  }
  let accepts = '';
  if (route.auth === 'bearer') accepts = ` Accepts: ${route.tokenKinds.map((k) => TOKEN_KIND_NAMES[k] ?? k).join(', ')}.`;
  return {
    operationId,
    summary: humanize(route.method.name),
    description: `RPC \`${route.service.typeName}/${route.method.name}\`.${accepts}`,
    tags: [tag],
    security: security(route),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responses(route, registry),
  };
}

/** GET/DELETE take the input's scalar fields as query parameters; repeated ones as `name[]` (queryToJson). */
function queryParameters(input: DescMessage, pathParams: Set<string>, registry: SchemaRegistry): OpenApiParameter[] {
  const out: OpenApiParameter[] = [];
  for (const field of input.fields) {
    if (pathParams.has(field.jsonName)) continue;
    const repeated = field.fieldKind === 'list' && field.listKind === 'scalar';
    if (field.fieldKind !== 'scalar' && !repeated) continue;
    out.push({
      name: repeated ? `${field.jsonName}[]` : field.jsonName,
      in: 'query',
      required: requiredInRequest(field, rulesOf(field)),
      schema: registry.fieldSchema(field, 'request'),
      ...(repeated ? { style: 'form', explode: true } : {}),
    });
  }
  return out;
}

function responses(route: Route, registry: SchemaRegistry): Record<string, OpenApiResponse | { $ref: string }> {
  const body = responseBodyMessage(route);
  const item: JsonSchema = body ? registry.messageSchema(body, 'response') : schemaRef('genericRsp');
  const schema: JsonSchema = body && answersArray(route) ? { type: 'array', items: item } : item;
  const requestIdHeader = { 'X-Request-ID': { $ref: '#/components/headers/RequestID' } };
  const out: Record<string, OpenApiResponse | { $ref: string }> = route.noContent
    ? { '204': { description: 'No Content', headers: requestIdHeader } }
    : { '200': { description: 'OK', headers: requestIdHeader, content: { 'application/json': { schema } } } };
  for (const name of errorResponsesOf(route)) out[ERROR_RESPONSES[name].status] = { $ref: `#/components/responses/${name}` };
  return out;
}
