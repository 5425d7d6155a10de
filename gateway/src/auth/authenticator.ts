/**
 * The one interface every scheme's authenticator (basic, bearer, public) answers behind, so the
 * pipeline's authenticate step is a single look-up by `route.auth` (createAuthenticators.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Route } from '../routeTable.js';
import type { Principal } from './bearerAuth.js';
import type { ProjectInfo } from './projectDirectory.js';

/** Who a request authenticated as. */
export interface Caller {
  projectId: string;
  /** The project's facts when the scheme loaded them (bearer, public); null for basic. */
  project: ProjectInfo | null;
  /** The verified bearer token (bearer routes only): the identity headers are built from it. */
  principal?: Principal;
}

export interface Authenticator {
  /** The caller, or an HttpError (401, 400, 404, 429) saying why not. `source` is the client address. */
  authenticate(req: IncomingMessage, route: Route, requestId: string, source: string): Promise<Caller>;
}
