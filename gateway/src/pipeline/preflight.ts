/** CORS preflights (OPTIONS on the frontend listener): answered by the gateway, never forwarded. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalOrigin } from '../../../services/runtime/canonicalOrigin.js';
import { projectFromHost } from '../auth/bearerAuth.js';
import type { ProjectDirectory } from '../auth/projectDirectory.js';
import { preflightHeaders } from '../cors.js';
import { HttpError } from '../errorResponse.js';
import type { Route } from '../routeTable.js';

export interface PreflightDeps {
  routes: Route[];
  directory: ProjectDirectory;
  /** Whether any project allows this origin (for preflights that name no project). */
  originAllowedAnywhere: (origin: string, requestId: string) => Promise<boolean>;
}

/** Answers the preflight (204) or throws the HttpError that refuses it; the status sent. */
export async function answerPreflight(req: IncomingMessage, res: ServerResponse, path: string, origin: string | undefined, requestId: string, deps: PreflightDeps): Promise<number> {
  const methods = deps.routes.filter((r) => r.listener === 'frontend' && r.pattern.test(path)).map((r) => r.httpMethod);
  if (methods.length === 0) throw new HttpError(404, { type: 'route_not_found', details: `there is no endpoint at ${path}` });
  if (!origin) throw new HttpError(400, { type: 'cors_origin_missing', details: 'a preflight request needs an Origin header' });
  if (canonicalOrigin(origin) === null) throw new HttpError(403, { type: 'cors_origin_not_allowed', details: `origin ${origin} is not allowed by this project` });
  const hostProject = projectFromHost(req.headers.host);
  const allowed = hostProject
    ? ((await deps.directory.get(hostProject, requestId))?.origins.includes(origin) ?? false)
    : await deps.originAllowedAnywhere(origin, requestId);
  if (!allowed) throw new HttpError(403, { type: 'cors_origin_not_allowed', details: `origin ${origin} is not allowed by this project` });
  res.writeHead(204, preflightHeaders(origin, methods));
  res.end();
  return 204;
}
