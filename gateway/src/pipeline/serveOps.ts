/** The operations endpoints on both listeners: liveness, readiness, Prometheus metrics. */
import type { ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { sendJson } from './respond.js';

export function isOpsPath(path: string): boolean {
  return path === '/healthz' || path === '/readyz' || path === '/metrics';
}

export async function serveOps(path: string, res: ServerResponse, deps: { ready: () => Promise<boolean>; registry: Registry }): Promise<void> {
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const ok = await deps.ready().catch(() => false);
    return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' });
  }
  res.writeHead(200, { 'content-type': deps.registry.contentType });
  res.end(await deps.registry.metrics());
}
