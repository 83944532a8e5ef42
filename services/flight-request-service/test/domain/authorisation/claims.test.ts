import { expect } from 'chai';
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { generateTokenKeys } from '@dfc/kit/testing';
import type { FlightRequestGeometry } from '../../../src/domain/flight-request/flight-request.js';
import type { StatusHistoryEntry } from '../../../src/domain/state-machine/transitions.js';
import { authorisationClaims, currentApproval, parseAuthorisationId, type AuthorisableRequest } from '../../../src/domain/authorisation/claims.js';
import { flightAreaDigest } from '../../../src/domain/authorisation/flight-area-digest.js';
import { AuthorisationKeys } from '../../../src/domain/authorisation/signing-keys.js';
import { authorisationStatus } from '../../../src/domain/authorisation/status.js';

const HOUR = 3_600_000;
const submitted = new Date('2026-12-01T08:00:00Z');
const approvedAt = new Date('2026-12-01T08:30:00Z');
const area = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [4.89, 52.37],
            [4.9, 52.37],
            [4.9, 52.38],
            [4.89, 52.37],
          ],
        ],
      },
    },
  ],
};

function approvedRequest(history: StatusHistoryEntry[] = []): AuthorisableRequest {
  return {
    _id: randomUUID(),
    operator_uuid: randomUUID(),
    status: history.at(-1)?.status ?? 'Approved',
    start_time: new Date('2026-12-01T10:00:00Z'),
    end_time: new Date('2026-12-01T11:00:00Z'),
    max_altitude: 100,
    area: { bbox: [4.89, 52.37, 4.9, 52.38] },
    geometry: { flight_area: area as FlightRequestGeometry['flight_area'] },
    status_history: [
      { status: 'Pending', at: submitted, actor: 'operator', reason: null },
      { status: 'Approved', at: approvedAt, actor: 'reviewer:LVNL', reason: 'Coordinated' },
      ...history,
    ],
  };
}

describe('signed authorisations (domain)', () => {
  describe('authorisationClaims', () => {
    it('when a request is Approved, then the claims name it, its operator, window, altitude, area and the decision', () => {
      const request = approvedRequest();
      const approval = currentApproval(request);
      expect(approval?.position).to.equal(1);
      const claims = authorisationClaims(request, approval!, 'NLDrp123');
      expect(claims).to.deep.include({
        sub: request._id,
        jti: `${request._id}.1`,
        iat: approvedAt.getTime() / 1000,
        exp: request.end_time.getTime() / 1000,
        flight_request_uuid: request._id,
        operator_uuid: request.operator_uuid,
        operator_registration_number: 'NLDrp123',
        start_time: '2026-12-01T10:00:00Z',
        end_time: '2026-12-01T11:00:00Z',
        max_altitude: 100,
        flight_area_bbox: [4.89, 52.37, 4.9, 52.38],
        flight_area_canonicalisation: 'RFC8785',
        decision: 'Approved',
        decided_by: 'reviewer:LVNL',
      });
      expect(claims.flight_area_sha256).to.equal(flightAreaDigest(area));
    });

    it('when the request is not Approved now, then there is no current approval', () => {
      const cancelled = approvedRequest([{ status: 'Cancelled', at: new Date(), actor: 'operator', reason: 'Weather' }]);
      expect(currentApproval(cancelled)).to.equal(null);
      expect(
        currentApproval({ status: 'Pending', status_history: [{ status: 'Pending', at: submitted, actor: 'operator', reason: null }] }),
      ).to.equal(null);
    });
  });

  describe('flightAreaDigest', () => {
    it('when two copies differ only in key order and spacing, then the digest is the same, the SHA-256 of RFC 8785 JSON', () => {
      const reordered = JSON.parse(
        `{ "features": [ { "geometry": { "coordinates": ${JSON.stringify(area.features[0]!.geometry.coordinates)}, "type": "Polygon" }, "properties": {}, "type": "Feature" } ], "type": "FeatureCollection" }`,
      ) as unknown;
      expect(flightAreaDigest(reordered)).to.equal(flightAreaDigest(area));
      const canonical =
        '{"features":[{"geometry":{"coordinates":[[[4.89,52.37],[4.9,52.37],[4.9,52.38],[4.89,52.37]]],"type":"Polygon"},"properties":{},"type":"Feature"}],"type":"FeatureCollection"}';
      expect(flightAreaDigest(area)).to.equal(createHash('sha256').update(canonical).digest('hex'));
    });

    it('when a coordinate changes, then the digest changes', () => {
      const moved = JSON.parse(JSON.stringify(area).replace('4.89,52.37],[4.9', '4.891,52.37],[4.9')) as unknown;
      expect(flightAreaDigest(moved)).to.not.equal(flightAreaDigest(area));
    });
  });

  describe('parseAuthorisationId', () => {
    it('when the id is <uuid>.<position>, then it names the request and the position; anything else is null', () => {
      const uuid = randomUUID();
      expect(parseAuthorisationId(`${uuid}.1`)).to.deep.equal({ requestUuid: uuid, position: 1 });
      for (const jti of [uuid, `${uuid}.`, `${uuid}.01`, `${uuid}.-1`, `${uuid}.1.2`, 'x.1', `${uuid}.99999`]) {
        expect(parseAuthorisationId(jti), jti).to.equal(null);
      }
    });
  });

  describe('authorisationStatus', () => {
    const before = new Date('2026-12-01T09:00:00Z');
    it('when the request is still Approved and the window has not ended, then valid', () => {
      const request = approvedRequest();
      expect(authorisationStatus(request, 1, before)).to.deep.equal({ jti: `${request._id}.1`, status: 'valid' });
    });

    it('when the window has ended, then expired', () => {
      expect(authorisationStatus(approvedRequest(), 1, new Date('2026-12-01T11:00:00Z'))?.status).to.equal('expired');
    });

    it('when the request was cancelled, then revoked and nothing more (no reason, no date), also after the window', () => {
      const at = new Date('2026-12-01T09:10:00Z');
      const request = approvedRequest([{ status: 'Cancelled', at, actor: 'operator', reason: 'Weather' }]);
      const status = authorisationStatus(request, 1, new Date(request.end_time.getTime() + HOUR));
      expect(status).to.deep.equal({ jti: `${request._id}.1`, status: 'revoked' });
    });

    it('when the request was rescinded by a zone, then revoked, the zone not named', () => {
      const request = approvedRequest([{ status: 'Rescinded', at: before, actor: 'screening', reason: 'Prohibited zone X' }]);
      expect(authorisationStatus(request, 1, before)).to.deep.equal({ jti: `${request._id}.1`, status: 'revoked' });
    });

    it('when a new authorisation zone suspended the request, then suspended; the approval that ends it is a new authorisation and the suspended one revoked', () => {
      const suspension = { status: 'Suspended' as const, at: before, actor: 'screening', reason: 'Needs HARBOUR.' };
      const suspended = approvedRequest([suspension]);
      expect(authorisationStatus(suspended, 1, before)).to.deep.equal({ jti: `${suspended._id}.1`, status: 'suspended' });
      expect(currentApproval(suspended)).to.equal(null);
      const reapproved = approvedRequest([suspension, { status: 'Approved', at: before, actor: 'reviewer:HARBOUR', reason: 'ok' }]);
      expect(authorisationStatus(reapproved, 1, before)?.status).to.equal('revoked');
      expect(authorisationStatus(reapproved, 3, before)?.status).to.equal('valid');
      expect(currentApproval(reapproved)?.position).to.equal(3);
      const rejected = approvedRequest([suspension, { status: 'Rejected', at: before, actor: 'reviewer:HARBOUR', reason: 'no' }]);
      expect(authorisationStatus(rejected, 1, before)?.status).to.equal('revoked');
    });

    it('when the position names no approval of the request, then null', () => {
      const request = approvedRequest();
      expect(authorisationStatus(request, 0, before)).to.equal(null);
      expect(authorisationStatus(request, 2, before)).to.equal(null);
    });
  });

  describe('AuthorisationKeys', () => {
    const current = generateTokenKeys();
    const previous = generateTokenKeys();

    it('when a token is signed twice from the same claims, then it is the same token, and it verifies with the JWKS key of its kid', async () => {
      const keys = AuthorisationKeys.fromPem(current.privateKeyPem, previous.publicKeyPem);
      const request = approvedRequest();
      const claims = authorisationClaims(request, currentApproval(request)!, null);
      const token = await keys.sign(claims);
      expect(await keys.sign(claims)).to.equal(token);
      const header = decodeProtectedHeader(token);
      expect(header).to.include({ alg: 'EdDSA', typ: 'dfc-authorisation+jwt', kid: keys.kid });
      const jwk = keys.jwks().keys.find((key) => key.kid === header.kid)!;
      const { payload } = await jwtVerify(token, await importJWK(jwk, 'EdDSA'), { currentDate: new Date('2026-12-01T09:00:00Z') });
      expect(payload).to.deep.equal(claims);
    });

    it('when previous public keys are configured, then the JWKS lists the signing key first, then them, each kid its RFC 7638 thumbprint', async () => {
      const older = generateTokenKeys();
      const keys = AuthorisationKeys.fromPem(current.privateKeyPem, `${previous.publicKeyPem}\n${older.publicKeyPem}`);
      const { keys: published } = keys.jwks();
      expect(published).to.have.length(3);
      expect(published[0]!.kid).to.equal(keys.kid);
      for (const key of published) {
        expect(key).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
        expect(key.kid).to.equal(await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }));
      }
    });

    it('when the signing key is not Ed25519, then it is refused at start', () => {
      const { privateKey } = generateKeyPairSync('ec', {
        namedCurve: 'P-256',
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      });
      expect(() => AuthorisationKeys.fromPem(privateKey)).to.throw(/must be Ed25519, not ec/);
    });
  });
});
