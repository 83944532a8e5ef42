import { BlockList, isIP } from 'node:net';
import { WEBHOOK_URL_MAX_LENGTH } from '@dfc/contracts';

export interface UrlPolicy {
  allowHttp: boolean;
  /** Development only: loopback targets (127.0.0.0/8, ::1) are let through; nothing else non-public ever is. */
  allowLoopbackTargets: boolean;
}

/** The loopback ranges the development flag opens, as CIDRs (also given to the sending agent). */
export const LOOPBACK_RANGES = ['127.0.0.0/8', '::1/128'] as const;

/**
 * Addresses a webhook must never reach: private, loopback, link-local
 * (including the cloud metadata services 169.254.169.254 and fe80::/10),
 * unique-local (AWS's fd00:ec2::254 among them), CGNAT (Alibaba's metadata
 * 100.100.100.200 among them), multicast, reserved and documentation ranges,
 * and IPv4 embedded in IPv6. Only literal IPs can be checked here; hostnames are checked after DNS
 * resolution, at send time, by the filtering agent.
 */
const forbiddenV4 = new BlockList();
// A separate list: node's BlockList also checks IPv4 addresses against IPv6 rules (as ::ffff:a.b.c.d).
const forbiddenV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbiddenV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  forbiddenV6.addSubnet(network, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family === 4 ? loopback.check(address, 'ipv4') : family === 6 && loopback.check(address, 'ipv6');
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? forbiddenV4.check(address, 'ipv4') : forbiddenV6.check(address, 'ipv6');
}

/** Spaces of any kind, C0 controls and DEL: none belongs in a URL as written. */
// eslint-disable-next-line no-control-regex -- finding control characters is this expression's purpose
const UNSTORABLE_URL_CHARACTER = /[\s\u0000-\u001f\u007f]/;

/** Field messages for `url` (empty when acceptable). */
export function checkEndpointUrl(text: string, policy: UrlPolicy): string[] {
  if (text.length > WEBHOOK_URL_MAX_LENGTH) return [`The url field must not be greater than ${WEBHOOK_URL_MAX_LENGTH} characters.`];
  // A URL parser drops surrounding white space, tabs and line breaks without a word: refused, so the
  // stored text is exactly the address every attempt calls.
  if (UNSTORABLE_URL_CHARACTER.test(text)) {
    return ['The url field must not contain white space, line breaks or control characters (percent-encode them).'];
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return ['The url field must be a valid URL.'];
  }
  const errors: string[] = [];
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    errors.push(policy.allowHttp ? 'The url field must use http or https.' : 'The url field must use https.');
  }
  if (url.username || url.password) errors.push('The url field must not contain credentials.');
  if (url.hash) errors.push('The url field must not contain a fragment.');
  if (url.port === '0') errors.push('The url field must not name port 0.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isForbiddenAddress(host) && !(policy.allowLoopbackTargets && isLoopbackAddress(host))) {
    errors.push('The url field must not point to a private, loopback or link-local address.');
  }
  return errors;
}
