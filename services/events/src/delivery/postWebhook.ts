/**
 * One webhook POST over node:http(s). The host is resolved once, by the request's own `lookup`,
 * and (unless private addresses are allowed) every address it resolves to is checked before the
 * connection is made to one of them: no second resolution can slip in another address.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from '../domain/addressPolicy.js';
import type { HostResolver, PostResult, WebhookPoster } from '../domain/ports.js';

const ADDRESS_NOT_ALLOWED = 'address_not_allowed';

function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (!allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) {
        return callback(Object.assign(new Error(ADDRESS_NOT_ALLOWED), { code: ADDRESS_NOT_ALLOWED }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Posts with a total timeout; never throws: a failure is status 0 with the error's code. */
export function webhookPoster(timeoutMs: number): WebhookPoster {
  return (url, headers, body, allowPrivate) =>
    new Promise<PostResult>((resolve) => {
      const target = new URL(url);
      const options: RequestOptions = {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: checkedLookup(allowPrivate),
        // A connection per attempt: a kept-alive socket would skip the look-up and its check.
        agent: false,
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      };
      // An IP literal skips `lookup`: check it here.
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (!allowPrivate && /^[\d.]+$|:/.test(literal) && !isPublicAddress(literal)) return resolve({ status: 0, error: ADDRESS_NOT_ALLOWED });
      const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (res) => {
        // The answer's body is not needed; drain it so the socket is freed.
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, error: err.code === 'ABORT_ERR' ? 'timeout' : (err.code ?? 'request_failed') }));
      req.end(body);
    });
}

/** The addresses of a host, for the check at creation (an IP literal is its own address). */
export const resolveHost: HostResolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host.replace(/^\[|\]$/g, ''), { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });
