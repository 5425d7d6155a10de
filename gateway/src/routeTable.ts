/** The REST route table, built from the `passkeyauth.gateway.v1.route` option of each RPC. */
import { getOption, hasOption, type DescMethod, type DescService } from '@bufbuild/protobuf';
import { route as routeOption, type HttpRoute } from '../../gen/passkeyauth/gateway/v1/http_pb.js';

export type AuthScheme = 'basic' | 'bearer' | 'public';
export type TokenKind = 'client' | 'process' | 'session' | 'refresh';
export type Listener = 'frontend' | 'backend';

export interface Route {
  httpMethod: string;
  template: string;
  pattern: RegExp;
  /** JSON names bound by the path's {segments}, in order. */
  params: string[];
  auth: AuthScheme;
  tokenKinds: TokenKind[];
  responseBody: string;
  genericResponse: boolean;
  /** Answer 204 without a body (event endpoints). */
  noContent: boolean;
  service: DescService;
  method: DescMethod;
  /** Basic routes are served by the backend listener, bearer and public ones by the frontend listener. */
  listener: Listener;
}

export function buildRouteTable(services: DescService[]): Route[] {
  const routes: Route[] = [];
  const seen = new Set<string>();
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, routeOption)) continue;
      const opt: HttpRoute = getOption(method, routeOption);
      const auth = opt.auth as AuthScheme;
      if (!['basic', 'bearer', 'public'].includes(auth)) throw new Error(`${service.typeName}.${method.name}: unknown auth scheme "${opt.auth}"`);
      if (method.methodKind !== 'unary') throw new Error(`${service.typeName}.${method.name}: only unary RPCs can have REST routes`);
      const httpMethod = opt.method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(httpMethod)) throw new Error(`${service.typeName}.${method.name}: unknown HTTP method "${opt.method}"`);
      for (const template of [opt.path, ...opt.aliasPaths]) {
        const { pattern, params } = compileTemplate(template);
        for (const p of params) {
          if (!method.input.fields.some((f) => f.jsonName === p)) throw new Error(`${template}: {${p}} names no field of ${method.input.typeName}`);
        }
        const listener: Listener = auth === 'basic' ? 'backend' : 'frontend';
        const key = `${listener} ${httpMethod} ${template}`;
        if (seen.has(key)) throw new Error(`duplicate route ${key}`);
        seen.add(key);
        routes.push({
          httpMethod,
          template,
          pattern,
          params,
          auth,
          tokenKinds: opt.tokenKinds as TokenKind[],
          responseBody: opt.responseBody,
          genericResponse: opt.genericResponse,
          noContent: opt.noContent,
          service,
          method,
          listener,
        });
      }
    }
  }
  return routes;
}

function compileTemplate(template: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const m = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(segment);
      if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), params };
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/** Finds the route for a path on one listener; a known path with another method is a 405. */
export function matchRoute(routes: Route[], listener: Listener, httpMethod: string, path: string): RouteMatch {
  const allowed: string[] = [];
  for (const route of routes) {
    if (route.listener !== listener) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.httpMethod !== httpMethod) {
      allowed.push(route.httpMethod);
      continue;
    }
    const params: Record<string, string> = {};
    try {
      route.params.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
    } catch {
      return { kind: 'not_found' };
    }
    return { kind: 'found', route, params };
  }
  return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}
