import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where an IP address would send a webhook: the public internet, this machine's loopback (which the
 * development flag may open), or anything else no webhook may reach (private, link-local with the cloud
 * metadata services, CGNAT, unique-local, multicast, reserved, documentation ranges). The one rule of
 * both the registration of a URL that names an address and every connection an attempt makes.
 */
export type TargetClass = 'public' | 'loopback' | 'non-public';

/**
 * The class of an IP address, or undefined for anything that is not one (a host name). IPv6 forms
 * that carry an IPv4 address are judged by the IPv4 address they carry, since a translator or tunnel
 * delivers them there: IPv4-mapped, IPv4-translated and IPv4-compatible, 6to4, Teredo (server and
 * client both), NAT64's well-known prefix, and its local-use prefix at every position RFC 6052 puts
 * the IPv4 address for the prefix lengths that prefix allows.
 */
export function classifyAddress(text: string): TargetClass | undefined {
  if (isIP(text) === 0) return undefined;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') return classifyV4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  const carried = embeddedV4(v6);
  if (carried !== undefined) return carried.every((v4) => classifyV4(v4) === 'public') ? 'public' : 'non-public';
  const range = v6.range();
  if (range === 'loopback') return 'loopback';
  return range === 'unicast' ? 'public' : 'non-public';
}

function classifyV4(address: ipaddr.IPv4): TargetClass {
  const range = address.range();
  if (range === 'loopback') return 'loopback';
  return range === 'unicast' ? 'public' : 'non-public';
}

const WELL_KNOWN_NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');
const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const IPV4_TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** The IPv4 addresses an IPv6 address carries, or undefined when it carries none. */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  const at = (...offsets: number[]) => new ipaddr.IPv4(offsets.map((offset) => bytes[offset] ?? 0));
  const last = at(12, 13, 14, 15);
  if (address.match(IPV4_MAPPED) || address.match(IPV4_TRANSLATED) || address.match(WELL_KNOWN_NAT64)) return [last];
  // `::` and `::1` are the unspecified and loopback addresses themselves, not IPv4-compatible ones.
  if (address.match(IPV4_COMPATIBLE)) return bytes.slice(12, 15).every((byte) => byte === 0) && (bytes[15] ?? 0) <= 1 ? undefined : [last];
  if (address.match(SIX_TO_FOUR)) return [at(2, 3, 4, 5)];
  if (address.match(TEREDO)) return [at(4, 5, 6, 7), new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff))];
  // RFC 6052 §2.2: /48 puts the address in bytes 6-7 and 9-10, /56 in 7 and 9-11, /64 in 9-12, /96 in 12-15.
  if (address.match(LOCAL_USE_NAT64)) return [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), last];
  return undefined;
}
