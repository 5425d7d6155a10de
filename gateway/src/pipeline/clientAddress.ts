import type { IncomingMessage } from 'node:http';

/** The caller's address: the socket peer, or the left-most X-Forwarded-For entry behind a trusted proxy. */
export function clientAddress(req: IncomingMessage, trustForwardedFor: boolean): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0].trim() : '';
  const address = trustForwardedFor && first ? first : (req.socket.remoteAddress ?? '');
  return address.slice(0, 64);
}
