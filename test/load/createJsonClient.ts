/**
 * A lean JSON-over-HTTP client for the load driver: node:http with keep-alive sockets (one per
 * virtual user, so a closed loop never waits for a socket), a fixed Authorization header (none for
 * the frontend API: pass "") plus a call's own headers, and no per-request allocation beyond the body. fetch() costs noticeably more CPU per request, and the
 * driver shares the machine's cores with the stack it measures.
 */
import { Agent, request } from 'node:http';

export interface JsonResponse {
  status: number;
  body: any;
}

export interface JsonClient {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
  close(): void;
}

const TIMEOUT_MS = 30_000;

export function createJsonClient(baseUrl: string, authorization: string, sockets: number): JsonClient {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const port = Number(url.port || 80);
  return {
    call(method, path, body, extraHeaders) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise<JsonResponse>((resolve, reject) => {
        const req = request(
          {
            agent,
            host: url.hostname,
            port,
            method,
            path,
            headers: {
              ...(authorization ? { authorization } : {}),
              ...extraHeaders,
              ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            },
            timeout: TIMEOUT_MS,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = text ? JSON.parse(text) : null;
              } catch {
                // A non-JSON answer (a proxy's error page) is kept as text for the error report.
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${TIMEOUT_MS} ms`)));
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A failed ceremony step, with everything the report prints for the first one. */
export class StepError extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${step}: HTTP ${status} ${typeof body === 'string' ? body : JSON.stringify(body)}`);
  }
}

/** The body of a 200 answer; a StepError otherwise. */
export async function expectOk(step: string, pending: Promise<JsonResponse>): Promise<any> {
  const r = await pending;
  if (r.status !== 200) throw new StepError(step, r.status, r.body);
  return r.body;
}
