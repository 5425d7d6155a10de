/**
 * CORS for the frontend API: only each project's allowed origins, with credentials. A preflight
 * carries no credentials, so its project comes from the host name when it can, and otherwise the
 * origin must be allowed by some project; the real request is then checked against its own project.
 */
export const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-request-id',
  'x-corbado-projectid',
  'x-corbado-process-id',
  'x-corbado-temp-process-id',
  'x-corbado-sdk',
  'x-corbado-client-timezone',
  'x-corbado-flags',
  // The web SDK's SessionService (@corbado/web-core) sends these on its /v2/me* calls.
  'cache-control',
  'pragma',
  'expires',
];

export function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'x-request-id',
    vary: 'Origin',
  };
}

export function preflightHeaders(origin: string, methods: string[]): Record<string, string> {
  return {
    ...corsHeaders(origin),
    'access-control-allow-methods': [...new Set([...methods, 'OPTIONS'])].join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS.join(', '),
    'access-control-max-age': '600',
  };
}
