/**
 * Whether an IP address is one the local CA may certify: on the loopback interface, the ranges
 * of its name constraints (localCaProfile.ts PERMITTED_IP_RANGES).
 */
import { BlockList, isIP } from 'node:net';
import { PERMITTED_IP_RANGES } from './localCaProfile.js';

// One list per family: a single BlockList would match an IPv4-mapped IPv6 address
// (::ffff:127.0.0.1) against the IPv4 range, which the CA's constraints, compared per family, do not.
const ranges = { 4: new BlockList(), 6: new BlockList() };
for (const range of PERMITTED_IP_RANGES) {
  const [address, prefix] = range.split('/');
  const family = isIP(address) as 4 | 6;
  ranges[family].addSubnet(address, Number(prefix), `ipv${family}`);
}

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return ranges[4].check(address, 'ipv4');
  return family === 6 && ranges[6].check(address, 'ipv6');
}
