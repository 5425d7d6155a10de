/**
 * Respond: the JSON answer (the RPC's response, one message field of it, or the generic envelope),
 * an errorRsp for anything thrown on the way, and the CORS headers that go on both.
 */
import type { Message } from '@bufbuild/protobuf';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { canonicalOrigin } from '../../../services/runtime/canonicalOrigin.js';
import type { ProjectDirectory, ProjectInfo } from '../auth/projectDirectory.js';
import { projectNamedBy } from '../auth/publicAuth.js';
import { corsHeaders } from '../cors.js';
import { errorRsp, fromConnectError, genericRsp, HttpError } from '../errorResponse.js';
import { encodeMessage, JsonShapeError } from '../jsonCodec.js';
import type { Route } from '../routeTable.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

/** The JSON a successful call answers with, as the route's options say. */
export function answerBody(route: Route, response: Message, requestId: string, seconds: number): unknown {
  if (route.genericResponse) return genericRsp(requestId, seconds);
  if (route.responseBody) {
    const field = route.method.output.fields.find((f) => f.localName === route.responseBody || f.name === route.responseBody);
    const inner = (response as unknown as Record<string, unknown>)[field?.localName ?? ''];
    // A repeated message field is the reference's bare JSON array (e.g. UserSocialAccountList).
    if (field?.fieldKind === 'list' && field.listKind === 'message') return ((inner ?? []) as never[]).map((item) => encodeMessage(field.message, item));
    if (!field || field.fieldKind !== 'message') throw new Error(`${route.httpMethod} ${route.template}: response_body "${route.responseBody}" is not a message field`);
    return inner ? encodeMessage(field.message, inner as never) : {};
  }
  return encodeMessage(route.method.output, response);
}

/**
 * CORS headers on an answer (success or error) only for an origin, in its exact browser spelling,
 * that the request's own project allows: the project it authenticated as, else the one its host
 * or X-Corbado-ProjectID names. An answer that belongs to no project carries none.
 */
export async function addCors(
  req: IncomingMessage,
  res: ServerResponse,
  origin: string | undefined,
  project: ProjectInfo | null,
  requestId: string,
  directory: ProjectDirectory,
): Promise<void> {
  if (!origin || canonicalOrigin(origin) === null) return;
  const own = project ?? (await namedProject(req, requestId, directory));
  if (own?.origins.includes(origin)) for (const [k, v] of Object.entries(corsHeaders(origin))) res.setHeader(k, v);
}

/** The project a request names (host, else X-Corbado-ProjectID), or null. */
async function namedProject(req: IncomingMessage, requestId: string, directory: ProjectDirectory): Promise<ProjectInfo | null> {
  const named = projectNamedBy(req.headers.host, req.headers['x-corbado-projectid']);
  if (!named) return null;
  return directory.get(named, requestId);
}

/** What a thrown error answers: its own HttpError, a 400 validation_error for a JSON shape, else the RPC's error. */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof JsonShapeError) return new HttpError(400, { type: 'validation_error', details: err.summary, validation: err.problems });
  return fromConnectError(err);
}

/** Answers an error as errorRsp (with the CORS headers the request earns); the status sent. */
export async function respondError(
  err: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string | undefined,
  project: ProjectInfo | null,
  requestId: string,
  deps: { directory: ProjectDirectory; logger: Logger },
  runtime: () => number,
): Promise<number> {
  const httpError = httpErrorOf(err);
  const status = httpError.status;
  if (status >= 500) deps.logger.error({ requestId, err }, 'request failed');
  await addCors(req, res, origin, project, requestId, deps.directory).catch(() => undefined);
  for (const [k, v] of Object.entries(httpError.headers)) res.setHeader(k, v);
  if (status === 413) res.setHeader('connection', 'close');
  sendJson(res, status, errorRsp(status, httpError.body, requestId, runtime()));
  return status;
}
