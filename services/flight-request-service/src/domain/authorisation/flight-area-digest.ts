import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * SHA-256 (hex) of the flight area in RFC 8785 canonical JSON: keys sorted,
 * no whitespace, numbers in their shortest round-trip form. Anyone holding the
 * area (GET .../flight-requests/{uuid}?include_geometry=true) computes the same
 * digest with any JCS library, whatever order or spacing their copy has.
 */
export function flightAreaDigest(flightArea: unknown): string {
  const canonical = canonicalize(flightArea);
  if (canonical === undefined) throw new TypeError('the flight area has no JSON form');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
