/**
 * createServer(): a Connect RPC server plus /healthz, /readyz and /metrics, built but not
 * listening (main.ts listens), so tests can run it on port 0 or in memory.
 */
import type { ConnectRouter } from '@connectrpc/connect';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { answerInOneWrite } from './answerInOneWrite.js';
import { internalAuthInterceptor, type InternalAuthKeys } from './internalAuth.js';
import type { InternalService } from './internalCallPolicy.js';
import { contextInterceptor, errorInterceptor, observeInterceptor, validationInterceptor } from './interceptors.js';
import type { Metrics } from './metrics.js';

export interface RuntimeDeps {
  logger: Logger;
  metrics: Metrics;
  /**
   * When given (always, in the processes' main.ts), calls without a valid caller token for this
   * service, or that the caller may not make, are refused (internalAuth.ts, internalCallPolicy.ts).
   */
  internalAuth?: { keys: InternalAuthKeys; service: InternalService };
  /** True while the process should receive traffic (store reachable, not shutting down). */
  ready: () => Promise<boolean>;
}

/** The interceptors of every service, in order. */
export function serviceInterceptors(deps: Pick<RuntimeDeps, 'logger' | 'metrics'>) {
  return [contextInterceptor(deps.logger), observeInterceptor(deps.metrics), errorInterceptor(), validationInterceptor()];
}

export function createRpcServer(routes: (router: ConnectRouter) => void, deps: RuntimeDeps): Server {
  const interceptors = serviceInterceptors(deps);
  if (deps.internalAuth) interceptors.unshift(internalAuthInterceptor({ ...deps.internalAuth, logger: deps.logger }));
  const rpc = answerInOneWrite({ routes, interceptors });
  return createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/readyz') {
      void deps.ready().then(
        (ok) => send(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' }),
        () => send(res, 503, { status: 'not ready' }),
      );
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      void deps.metrics.registry.metrics().then((body) => {
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(body);
      });
      return;
    }
    rpc(req, res);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
