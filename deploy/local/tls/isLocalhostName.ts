/**
 * Whether a TLS server name is one the local CA may certify: `localhost` or a name below it such
 * as `pro-123.localhost` (RFC 6761 reserves these for the loopback interface). Anything else is
 * refused before a certificate is made for it.
 */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const LOCALHOST_NAME = new RegExp(`^(?:${LABEL}\\.){0,4}localhost$`);

export function isLocalhostName(name: string): boolean {
  return name.length <= 253 && LOCALHOST_NAME.test(name);
}
