/**
 * Decode and bound: the request message from the JSON body (at most MAX_BODY_BYTES, readBody.ts)
 * or the query string, with the path parameters; shape problems are JsonShapeErrors (400).
 */
import type { Message } from '@bufbuild/protobuf';
import type { IncomingMessage } from 'node:http';
import { decodeMessage, queryToJson } from '../jsonCodec.js';
import { declaresBody, readJsonBody } from '../readBody.js';
import type { Route } from '../routeTable.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export async function decodeRequest(req: IncomingMessage, method: string, url: URL, route: Route, params: Record<string, string>): Promise<Message> {
  // A DELETE with a body is read like a POST (the SDK sends some as JSON); without one, from the query string.
  const json = BODY_METHODS.has(method) || (method === 'DELETE' && declaresBody(req)) ? await readJsonBody(req) : queryToJson(route.method.input, url.searchParams);
  // Path parameters win over body fields of the same name.
  for (const name of route.params) json[name] = params[name];
  return decodeMessage(route.method.input, json);
}
