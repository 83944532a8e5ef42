import { expect } from 'chai';
import {
  canonicalPath,
  DEFAULT_BODY_LIMIT_BYTES,
  isPublic,
  resolveProxyRoute,
  ZONE_IMPORT_BODY_LIMIT_BYTES,
  ZONE_IMPORT_UPSTREAM_TIMEOUT_MS,
} from '../../src/domain/routing.js';

describe('gateway routing table', () => {
  describe('canonicalPath', () => {
    it('when the path is under /api/v1, then it is rewritten to /api', () => {
      expect(canonicalPath('/api/v1/flight-requests/abc')).to.equal('/api/flight-requests/abc');
      expect(canonicalPath('/api/v1')).to.equal('/api');
    });

    it('when the path only looks like a version prefix, then it is left alone', () => {
      expect(canonicalPath('/api/v10/operators')).to.equal('/api/v10/operators');
      expect(canonicalPath('/api/v1operators')).to.equal('/api/v1operators');
      expect(canonicalPath('/api/operators')).to.equal('/api/operators');
    });
  });

  describe('resolveProxyRoute', () => {
    const cases: Array<[string, string]> = [
      ['/api/operators', 'operator-service'],
      ['/api/operators/9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d', 'operator-service'],
      ['/api/api-keys', 'operator-service'],
      ['/api/flight-requests', 'flight-request-service'],
      ['/api/zones/import', 'flight-request-service'],
      ['/api/reviews/items', 'flight-request-service'],
      ['/api/webhooks/1/deliveries', 'webhook-service'],
      ['/api/authorisations/0b8f2c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d.1', 'flight-request-service'],
      ['/.well-known/jwks.json', 'flight-request-service'],
    ];
    for (const [path, upstream] of cases) {
      it(`when the path is ${path}, then it goes to ${upstream}`, () => {
        expect(resolveProxyRoute('GET', path)?.upstream).to.equal(upstream);
      });
    }

    it('when the path is outside the table (internal, operations, look-alike prefixes), then there is no route', () => {
      for (const path of ['/internal/api-keys/verify', '/metrics', '/healthz', '/api', '/api/operatorsX', '/api/unknown', '/']) {
        expect(resolveProxyRoute('GET', path), path).to.equal(undefined);
      }
    });

    it('when the path climbs out of its prefix with dot segments or encoded slashes, then there is no route', () => {
      for (const path of [
        '/api/operators/../../internal/api-keys/verify',
        '/api/operators/%2e%2E/metrics',
        '/api/operators/.',
        '/api/webhooks/x%2f..%2f..%2finternal',
        '/api/zones\\..\\metrics',
      ]) {
        expect(resolveProxyRoute('GET', path), path).to.equal(undefined);
      }
    });

    it('when the call is a zone import, then the body limit is 16 MiB, otherwise 1 MiB', () => {
      expect(resolveProxyRoute('POST', '/api/zones/import')?.bodyLimitBytes).to.equal(ZONE_IMPORT_BODY_LIMIT_BYTES);
      expect(resolveProxyRoute('POST', '/api/zones')?.bodyLimitBytes).to.equal(DEFAULT_BODY_LIMIT_BYTES);
      expect(resolveProxyRoute('POST', '/api/flight-requests')?.bodyLimitBytes).to.equal(DEFAULT_BODY_LIMIT_BYTES);
      expect(resolveProxyRoute('POST', '/api/zones/import')?.timeoutMs).to.equal(ZONE_IMPORT_UPSTREAM_TIMEOUT_MS);
      expect(resolveProxyRoute('POST', '/api/zones')?.timeoutMs).to.equal(undefined);
    });
  });

  describe('isPublic', () => {
    it("when registering or managing an operator's keys, then no API key is needed", () => {
      expect(isPublic('POST', '/api/operators')).to.equal(true);
      expect(isPublic('POST', '/api/operators/abc/api-keys')).to.equal(true);
      expect(isPublic('GET', '/api/operators/abc/api-keys')).to.equal(true);
      expect(isPublic('DELETE', '/api/operators/abc/api-keys/0123456789abcdef')).to.equal(true);
    });

    it('when reading operators, flight requests or staff keys, then a key is needed', () => {
      expect(isPublic('GET', '/api/operators')).to.equal(false);
      expect(isPublic('GET', '/api/operators/abc')).to.equal(false);
      expect(isPublic('PATCH', '/api/operators/abc')).to.equal(false);
      expect(isPublic('POST', '/api/api-keys')).to.equal(false);
      expect(isPublic('POST', '/api/flight-requests')).to.equal(false);
      expect(isPublic('GET', '/api/operators/abc/api-keys/x/y')).to.equal(false);
    });

    it("when an outside verifier reads the key set or a token's status, then no API key is needed", () => {
      expect(isPublic('GET', '/.well-known/jwks.json')).to.equal(true);
      expect(isPublic('GET', '/api/authorisations/0b8f2c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d.1')).to.equal(true);
    });

    it("when a flight request's own authorisation is read, or the status route is written to, then a key is needed", () => {
      expect(isPublic('GET', '/api/flight-requests/abc/authorisation')).to.equal(false);
      expect(isPublic('POST', '/api/authorisations/abc')).to.equal(false);
      expect(isPublic('GET', '/api/authorisations')).to.equal(false);
    });
  });
});
