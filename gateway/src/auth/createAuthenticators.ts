/**
 * The authenticators by scheme: the basic and bearer ones adapted to the Authenticator interface,
 * the public one as it is. Made once per gateway, so a request allocates no closures for them.
 */
import type { AuthScheme } from '../routeTable.js';
import type { Authenticator } from './authenticator.js';
import type { BasicAuthenticator } from './basicAuth.js';
import type { BearerAuthenticator } from './bearerAuth.js';
import type { ProjectDirectory } from './projectDirectory.js';
import { PublicAuthenticator } from './publicAuth.js';

export function createAuthenticators(basic: BasicAuthenticator, bearer: BearerAuthenticator, directory: ProjectDirectory): Record<AuthScheme, Authenticator> {
  return {
    basic: {
      async authenticate(req, _route, requestId, source) {
        return { projectId: await basic.authenticate(req.headers.authorization, requestId, source), project: null };
      },
    },
    bearer: {
      async authenticate(req, route, requestId) {
        const principal = await bearer.authenticate(req.headers, route.tokenKinds, requestId);
        return { projectId: principal.projectId, project: principal.project, principal };
      },
    },
    public: new PublicAuthenticator(directory),
  };
}
