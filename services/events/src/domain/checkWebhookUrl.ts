import { invalidArgument } from '../../../runtime/errors.js';
import { isPublicAddress } from './addressPolicy.js';
import type { HostResolver } from './ports.js';

const bad = (message: string) => invalidArgument('validation_error', `url ${message}`, [{ field: 'url', message }]);

/**
 * A webhook URL: http(s), a host, no credentials (basic auth has its own fields, which are sealed).
 * Unless private addresses are allowed, every address the host resolves to must be public; the
 * worker checks again at each attempt, since DNS answers change.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean, resolve: HostResolver): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('must use http or https');
  if (!url.hostname) throw bad('must name a host');
  if (url.username || url.password) throw bad('must not carry credentials; use basicAuthUsername and basicAuthPassword');
  if (allowPrivate) return url;
  let addresses: string[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    throw bad(`host ${url.hostname} does not resolve`);
  }
  if (addresses.length === 0) throw bad(`host ${url.hostname} does not resolve`);
  if (!addresses.every(isPublicAddress)) throw bad('must not reach a loopback, private or link-local address');
  return url;
}
