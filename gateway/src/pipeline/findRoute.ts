/** Match: the route a request's method and path name on its listener, or a 404 / 405 HttpError. */
import { HttpError } from '../errorResponse.js';
import { matchRoute, type Listener, type Route } from '../routeTable.js';

export function findRoute(routes: Route[], listener: Listener, method: string, path: string): { route: Route; params: Record<string, string> } {
  const match = matchRoute(routes, listener, method, path);
  if (match.kind === 'not_found') throw new HttpError(404, { type: 'route_not_found', details: `there is no endpoint ${method} ${path}` });
  if (match.kind === 'method_not_allowed') {
    throw new HttpError(405, { type: 'method_not_allowed', details: `${path} does not accept ${method}` }, { allow: match.allowed.join(', ') });
  }
  return match;
}
