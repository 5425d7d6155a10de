/**
 * Public routes (session config, JWKS, …) take no credentials: the request names its project in
 * the host (`<projectID>.<frontend domain>`) or in X-Corbado-ProjectID, and the project must exist.
 */
import type { IncomingMessage } from 'node:http';
import { PROJECT_ID } from '../../../services/runtime/wire.js';
import { HttpError } from '../errorResponse.js';
import type { Route } from '../routeTable.js';
import type { Authenticator, Caller } from './authenticator.js';
import { projectFromHost } from './bearerAuth.js';
import type { ProjectDirectory } from './projectDirectory.js';

/**
 * The project a public request names: the host's, else X-Corbado-ProjectID's. Both given and
 * different is a 400 project_mismatch; neither, or no project ID, is a 400 project_required.
 */
export function requireNamedProject(host: string | undefined, projectHeader: string | undefined): string {
  const fromHost = projectFromHost(host);
  if (fromHost && projectHeader && fromHost !== projectHeader) {
    throw new HttpError(400, { type: 'project_mismatch', details: 'the host and X-Corbado-ProjectID name different projects' });
  }
  const named = fromHost ?? projectHeader;
  if (!named || !PROJECT_ID.test(named)) {
    throw new HttpError(400, { type: 'project_required', details: 'name the project in the host (<projectID>.<domain>) or the X-Corbado-ProjectID header' });
  }
  return named;
}

/**
 * The project a request names (host, else X-Corbado-ProjectID) when it names one validly, without
 * refusing anything: what an answer's CORS headers are checked against when the request did not
 * authenticate.
 */
export function projectNamedBy(host: string | undefined, projectHeader: unknown): string | undefined {
  const named = projectFromHost(host) ?? (typeof projectHeader === 'string' ? projectHeader : undefined);
  return named && PROJECT_ID.test(named) ? named : undefined;
}

export class PublicAuthenticator implements Authenticator {
  constructor(private readonly directory: ProjectDirectory) {}

  async authenticate(req: IncomingMessage, _route: Route, requestId: string): Promise<Caller> {
    const named = requireNamedProject(req.headers.host, req.headers['x-corbado-projectid'] as string | undefined);
    const project = await this.directory.get(named, requestId);
    if (!project) throw new HttpError(404, { type: 'project_not_found', details: `project ${named} does not exist` });
    return { projectId: named, project };
  }
}
