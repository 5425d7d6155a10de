/**
 * Which network addresses a webhook may reach. Without the operator's permission
 * (WEBHOOK_ALLOW_PRIVATE_ADDRESSES) a delivery must not reach the deployment's own network: a
 * project's API secret would otherwise be a way to make the service POST to internal hosts (SSRF).
 */
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
// IPv4: "this network", private (RFC 1918), CGNAT, loopback, link-local, IETF protocol
// assignments, benchmarking, multicast and reserved/broadcast.
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
// IPv6: unspecified, loopback, unique local (fc00::/7), link-local, multicast.
refused.addAddress('::', 'ipv6');
refused.addAddress('::1', 'ipv6');
refused.addSubnet('fc00::', 7, 'ipv6');
refused.addSubnet('fe80::', 10, 'ipv6');
refused.addSubnet('ff00::', 8, 'ipv6');

/** An IPv4 address written inside IPv6 (::ffff:a.b.c.d, the NAT64 prefix is public), checked as IPv4. */
function embeddedIpv4(address: string): string | null {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : null;
}

/** Whether a delivery may go to this IP address when private addresses are not allowed. */
export function isPublicAddress(address: string): boolean {
  const v4 = embeddedIpv4(address);
  if (v4) return !refused.check(v4, 'ipv4');
  const family = isIP(address);
  if (family === 4) return !refused.check(address, 'ipv4');
  if (family === 6) return !refused.check(address, 'ipv6');
  return false;
}
