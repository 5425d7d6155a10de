/**
 * One webhook POST over node:http(s). The host is resolved at every attempt and (unless private
 * addresses are allowed) every address it resolves to is checked; the request then goes to the
 * first checked address itself (the URL's host travels as Host and as the TLS server name, against
 * which the certificate is verified), so no second resolution can slip in another address.
 *
 * Connections are kept alive per CHECKED address: the pool is keyed by (protocol, IP, port, TLS
 * server name), and an attempt takes a socket only from the pool of the address it has just
 * resolved and checked. A kept socket therefore always leads to an address that passed the check
 * of this very attempt, exactly as a fresh connection would; a changed DNS answer or a revoked
 * allowance changes the address or fails the check before any socket is chosen. What is saved is
 * the TCP (and TLS) handshake per delivery, not the look-up or the check.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress } from '../domain/addressPolicy.js';
import type { HostResolver, PostResult, WebhookPoster } from '../domain/ports.js';

const ADDRESS_NOT_ALLOWED = 'address_not_allowed';
/** An idle kept connection is closed after this (below the usual servers' keep-alive of 5 s and more). */
const IDLE_MS = 2000;
/** Pools kept at most; beyond, the least recently used pool's sockets are closed. */
const MAX_POOLS = 256;

const pools = new Map<string, HttpAgent>();

/** The keep-alive pool of one checked address (one key, one agent, so no other address shares it). */
function poolFor(key: string, https: boolean): HttpAgent {
  let agent = pools.get(key);
  if (agent) {
    pools.delete(key);
  } else {
    const options = { keepAlive: true, timeout: IDLE_MS, maxFreeSockets: 16, scheduling: 'lifo' as const };
    agent = https ? new HttpsAgent(options) : new HttpAgent(options);
    if (pools.size >= MAX_POOLS) {
      const [oldest, old] = pools.entries().next().value as [string, HttpAgent];
      pools.delete(oldest);
      old.destroy();
    }
  }
  pools.set(key, agent);
  return agent;
}

/** The checked address to connect to, or an error code. */
function resolveChecked(hostname: string, allowPrivate: boolean): Promise<{ address: string } | { error: string }> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) return Promise.resolve(allowPrivate || isPublicAddress(literal) ? { address: literal } : { error: ADDRESS_NOT_ALLOWED });
  return new Promise((resolve) => {
    dnsLookup(literal, { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return resolve({ error: (err as NodeJS.ErrnoException).code ?? 'dns_failed' });
      if (addresses.length === 0) return resolve({ error: 'dns_failed' });
      if (!allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) return resolve({ error: ADDRESS_NOT_ALLOWED });
      resolve({ address: addresses[0]!.address });
    });
  });
}

/** Posts with a total timeout; never throws: a failure is status 0 with the error's code. */
export function webhookPoster(timeoutMs: number): WebhookPoster {
  return async (url, headers, body, allowPrivate) => {
    const target = new URL(url);
    const signal = AbortSignal.timeout(timeoutMs);
    const checked = await resolveChecked(target.hostname, allowPrivate);
    if ('error' in checked) return { status: 0, error: checked.error };
    const https = target.protocol === 'https:';
    const port = target.port ? Number(target.port) : https ? 443 : 80;
    const servername = https && !isIP(target.hostname.replace(/^\[|\]$/g, '')) ? target.hostname : undefined;
    const options: RequestOptions & { servername?: string } = {
      method: 'POST',
      host: checked.address,
      port,
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) },
      agent: poolFor(`${target.protocol}|${checked.address}|${port}|${servername ?? ''}`, https),
      ...(servername ? { servername } : {}),
      timeout: timeoutMs,
      signal,
    };
    return new Promise<PostResult>((resolve) => {
      const req = (https ? httpsRequest : httpRequest)(options, (res) => {
        // The answer's body is not needed; drain it so the socket is freed (and kept).
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, error: err.code === 'ABORT_ERR' ? 'timeout' : (err.code ?? 'request_failed') }));
      req.end(body);
    });
  };
}

/** The addresses of a host, for the check at creation (an IP literal is its own address). */
export const resolveHost: HostResolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host.replace(/^\[|\]$/g, ''), { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });
