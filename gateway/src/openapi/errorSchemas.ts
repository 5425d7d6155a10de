/**
 * The reference API's envelope schemas (requestData, genericRsp, errorRsp) exactly as
 * errorResponse.ts renders them, the error responses each route can give, and their headers.
 */
import type { Route } from '../routeTable.js';
import { schemaRef, type JsonSchema, type OpenApiResponse } from './jsonSchema.js';

export const ENVELOPE_SCHEMAS: Record<string, JsonSchema> = {
  requestData: {
    type: 'object',
    description: 'Data about the request itself, for debugging and support.',
    required: ['requestID', 'link'],
    properties: {
      requestID: { type: 'string', description: 'The request ID (also in the X-Request-ID header).' },
      link: { type: 'string', description: 'Link to details about the request (empty when there is none).' },
    },
  },
  genericRsp: {
    type: 'object',
    description: 'The generic answer of operations that return no data.',
    required: ['httpStatusCode', 'message', 'requestData', 'runtime'],
    properties: {
      httpStatusCode: { type: 'integer', format: 'int32', const: 200 },
      message: { type: 'string', const: 'OK' },
      requestData: schemaRef('requestData'),
      runtime: { type: 'number', description: 'Runtime of the request in seconds.' },
    },
  },
  errorRsp: {
    type: 'object',
    description: 'Every error answer of the API.',
    required: ['httpStatusCode', 'message', 'requestData', 'runtime', 'error'],
    properties: {
      httpStatusCode: { type: 'integer', format: 'int32', minimum: 400, maximum: 599, description: 'The HTTP status code, repeated.' },
      message: { type: 'string', description: 'The HTTP status text, e.g. "Bad Request".' },
      requestData: schemaRef('requestData'),
      runtime: { type: 'number', description: 'Runtime of the request in seconds.' },
      error: {
        type: 'object',
        required: ['type', 'validation', 'links'],
        properties: {
          type: { type: 'string', description: 'Machine-readable error type, e.g. "validation_error", "user_not_found".' },
          details: { type: 'string', description: 'Human-readable explanation.' },
          validation: {
            type: 'array',
            description: 'Problems with single request fields (empty when the error is not about fields).',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: {
                field: { type: 'string', description: 'JSON path of the field, e.g. "clientInformation.userAgent".' },
                message: { type: 'string' },
              },
            },
          },
          links: { type: 'array', description: 'Links that help understand the error.', items: { type: 'string' } },
        },
      },
    },
  },
};

export const RESPONSE_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  RequestID: { description: 'The request ID: the caller\'s X-Request-ID if it was valid, otherwise a generated one.', schema: { type: 'string' } },
  Allow: { description: 'The methods the path accepts.', schema: { type: 'string' } },
  WWWAuthenticate: { description: 'The authentication scheme the endpoint expects.', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds until a retry can succeed.', schema: { type: 'integer', minimum: 0 } },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function errorResponse(description: string, extraHeaders: Record<string, string> = {}): OpenApiResponse {
  const headers: Record<string, { $ref: string }> = { 'X-Request-ID': headerRef('RequestID') };
  for (const [header, component] of Object.entries(extraHeaders)) headers[header] = headerRef(component);
  return { description, headers, content: { 'application/json': { schema: schemaRef('errorRsp') } } };
}

/** Error responses by status; operations refer to them by these names. */
export const ERROR_RESPONSES: Record<string, { status: string; response: OpenApiResponse }> = {
  BadRequest: { status: '400', response: errorResponse('The request is malformed (invalid_json), has fields of the wrong JSON type or fails validation (validation_error; error.validation names the fields).') },
  Unauthorized: { status: '401', response: errorResponse('Credentials are missing or invalid.', { 'WWW-Authenticate': 'WWWAuthenticate' }) },
  NotFound: { status: '404', response: errorResponse('The resource (or, on public endpoints, the project) does not exist; unknown paths answer route_not_found.') },
  MethodNotAllowed: { status: '405', response: errorResponse('The path exists but does not accept this method (method_not_allowed).', { Allow: 'Allow' }) },
  Conflict: { status: '409', response: errorResponse('The request conflicts with the current state (e.g. a duplicate, or a precondition that does not hold).') },
  PayloadTooLarge: { status: '413', response: errorResponse('The request body exceeds 256 KiB (payload_too_large).') },
  UnsupportedMediaType: { status: '415', response: errorResponse('The request body is not application/json (unsupported_media_type).') },
  TooManyRequests: { status: '429', response: errorResponse('A rate limit was hit.', { 'Retry-After': 'RetryAfter' }) },
  ServiceUnavailable: { status: '503', response: errorResponse('A backing service is not reachable; try again shortly (service_unavailable).') },
  Error: { status: 'default', response: errorResponse('Any other error, in the same errorRsp shape (e.g. 403, 410 for something expired, 500, 504).') },
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The names of the error responses a route can give, in status order. */
export function errorResponsesOf(route: Route): string[] {
  const names = ['BadRequest'];
  if (route.auth !== 'public') names.push('Unauthorized');
  names.push('NotFound');
  if (route.httpMethod !== 'GET') names.push('Conflict');
  if (BODY_METHODS.has(route.httpMethod)) names.push('PayloadTooLarge', 'UnsupportedMediaType');
  names.push('TooManyRequests', 'ServiceUnavailable', 'Error');
  return names;
}
