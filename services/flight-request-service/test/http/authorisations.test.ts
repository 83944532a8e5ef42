import { expect } from 'chai';
import { createPublicKey, randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Principal } from '@dfc/contracts';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';

const anonymous: Principal = { sub: 'anonymous', role: 'anonymous' };

describe('signed authorisations (GET /api/flight-requests/{uuid}/authorisation, /api/authorisations/{jti}, /.well-known/jwks.json)', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator({ registration_number: 'NLDrp0000042' });
  });
  after(async () => t.close());

  const as = () => operatorPrincipal(operatorUuid);
  const submit = async (overrides: Record<string, unknown> = {}) =>
    (await t.call('POST', '/api/flight-requests', { as: as(), body: submission(operatorUuid, overrides) })).body.data;
  const authorisation = (uuid: string, principal: Principal = as()) => t.call('GET', `/api/flight-requests/${uuid}/authorisation`, { as: principal });
  const status = (jti: string) => t.call('GET', `/api/authorisations/${jti}`, { as: anonymous });

  it('when a request is Approved, then its token verifies with the JWKS alone, names the approval, and is the same on every call', async () => {
    const approved = await submit();
    expect(approved.status).to.equal('Approved');
    const first = await authorisation(approved.uuid);
    expect(first.status).to.equal(200);
    const jwks = await t.call('GET', '/.well-known/jwks.json', { as: anonymous });
    expect(jwks.status).to.equal(200);
    expect(jwks.headers.get('cache-control')).to.equal('public, max-age=300');

    const { payload, protectedHeader } = await jwtVerify(first.body.data.token, createLocalJWKSet(jwks.body), {
      issuer: 'dfc-flight-request-service',
      typ: 'dfc-authorisation+jwt',
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader.kid).to.equal(first.body.data.kid).and.equal(jwks.body.keys[0].kid);
    expect(payload).to.deep.equal(first.body.data.claims);
    expect(payload).to.include({
      sub: approved.uuid,
      jti: `${approved.uuid}.1`,
      operator_uuid: operatorUuid,
      operator_registration_number: 'NLDrp0000042',
      start_time: approved.start_time,
      end_time: approved.end_time,
      max_altitude: approved.max_altitude,
      decision: 'Approved',
      decided_by: 'screening',
      iat: Date.parse(approved.status_history[1].at) / 1000,
      exp: Date.parse(approved.end_time) / 1000,
    });
    expect(payload['flight_area_bbox']).to.deep.equal(approved.area.bbox);
    expect((await authorisation(approved.uuid)).body.data.token).to.equal(first.body.data.token);
  });

  it('when the request is not Approved, or not the caller’s, then 404; admins read any', async () => {
    const pending = await submit({ max_altitude: 200 });
    expect(pending.status).to.equal('Pending');
    expect((await authorisation(pending.uuid)).status).to.equal(404);
    const approved = await submit();
    expect((await authorisation(approved.uuid, operatorPrincipal(randomUUID()))).status).to.equal(404);
    expect((await authorisation(approved.uuid, reviewerPrincipal('LVNL'))).status).to.equal(404);
    expect((await authorisation(approved.uuid, admin)).status).to.equal(200);
    expect((await authorisation('not-a-uuid')).status).to.equal(404);
  });

  it('when the request is cancelled, then the token’s status turns from valid to revoked, telling nothing more, and the token is no longer handed out', async () => {
    const approved = await submit();
    const { jti } = (await authorisation(approved.uuid)).body.data;
    const valid = await status(jti);
    expect(valid.status).to.equal(200);
    expect(valid.body.data).to.deep.equal({ jti, status: 'valid' });

    const cancelled = await t.call('DELETE', `/api/flight-requests/${approved.uuid}`, { as: as(), body: { reason: 'Rotor damage' } });
    expect(cancelled.status).to.equal(200);
    const revoked = await status(jti);
    expect(revoked.body.data).to.deep.equal({ jti, status: 'revoked' });
    expect((await authorisation(approved.uuid)).status).to.equal(404);
  });

  it('when the jti is unknown or malformed, then 404', async () => {
    const approved = await submit();
    for (const jti of [`${randomUUID()}.1`, `${approved.uuid}.0`, `${approved.uuid}.7`, approved.uuid, 'nonsense']) {
      expect((await status(jti)).status, jti).to.equal(404);
    }
  });

  it('when the JWKS is read, then it holds the signing key the service was given', async () => {
    const jwks = await t.call('GET', '/.well-known/jwks.json', { as: anonymous });
    const published = createPublicKey({ key: jwks.body.keys[0], format: 'jwk' });
    const configured = createPublicKey(t.shared.authorisationKeys.publicKeyPem);
    expect(published.equals(configured)).to.equal(true);
  });
});
