import { expect } from 'chai';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import mongoose from 'mongoose';
import { captureEvents, waitFor, unrecorded } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/** Public calls (registration, key issuance, JWKS, status) a client IP may make per minute in this run. */
const AUTHORISATION_CHECKS_PER_IP_PER_MINUTE = 40;

/**
 * Signed authorisations and the submission preview, through the gateway as an
 * operator and as an outside verifier (a police officer's app, an airport)
 * see them: the verifier has nothing but the token and the gateway's JWKS.
 */
describe('signed authorisations and preview through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let gateway: GatewayClient;
  let client: RegisteredOperator;

  const send = (method: string, path: string, key?: string, body?: unknown) =>
    gateway.send(method, path, { ...(key ? { key } : {}), ...(body === undefined ? {} : { body }) });
  /** Submits once the operator projection has caught up (until then the operator is unknown: 422 on operator_uuid). */
  const submit = (body: unknown) =>
    waitFor(async () => {
      const response = await send('POST', '/api/flight-requests', client.key, body);
      return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
    }, 15_000);

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'flight-request-service', 'gateway'],
      serviceEnv: { gateway: { RATE_LIMIT_AUTHORISATION_CHECKS_PER_IP_PER_MINUTE: String(AUTHORISATION_CHECKS_PER_IP_PER_MINUTE) } },
    });
    gateway = new GatewayClient(system.gatewayUrl);
    client = await gateway.registerOperatorWithKey({ operator_registration_number: 'NLDrp7001e2e' });
  });
  after(async () => system?.stop());

  it('an outside verifier checks an Approved request’s token with only the gateway’s JWKS, then sees it revoked after a cancellation', async () => {
    const created = await submit(flightRequestBody(client, {}, 5.61));
    expect(created.status).to.equal(201);
    expect(created.body.data.status).to.equal('Approved');
    const uuid = created.body.data.uuid as string;
    const issued = await send('GET', `/api/v1/flight-requests/${uuid}/authorisation`, client.key);
    expect(issued.status).to.equal(200);
    const token = issued.body.data.token as string;

    // The verifier: a plain JOSE library, the token, and the key set the gateway publishes. No API key.
    const keys = createRemoteJWKSet(new URL(`${system.gatewayUrl}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(token, keys, { issuer: 'dfc-flight-request-service', typ: 'dfc-authorisation+jwt', algorithms: ['EdDSA'] });
    expect(payload).to.include({
      flight_request_uuid: uuid,
      operator_uuid: client.uuid,
      operator_registration_number: 'NLDrp7001e2e',
      max_altitude: 100,
      decision: 'Approved',
    });

    // The flight area it names is the one the operator submitted: same RFC 8785 digest.
    const full = await send('GET', `/api/v1/flight-requests/${uuid}?include_geometry=true`, client.key);
    const digest = createHash('sha256')
      .update(canonicalize(full.body.data.flight_area) ?? '')
      .digest('hex');
    expect(payload['flight_area_sha256']).to.equal(digest);

    const valid = await send('GET', `/api/v1/authorisations/${payload.jti}`);
    expect(valid.status).to.equal(200);
    expect(valid.body.data).to.include({ jti: payload.jti, status: 'valid' });

    expect((await send('DELETE', `/api/flight-requests/${uuid}`, client.key, { reason: 'Battery recall' })).status).to.equal(200);
    const revoked = await send('GET', `/api/authorisations/${payload.jti}`);
    expect(revoked.body.data).to.deep.equal({ jti: payload.jti, status: 'revoked' });
  });

  it('a token that was not issued by the service fails the outside verifier’s check', async () => {
    const created = await submit(flightRequestBody(client, {}, 5.63));
    const token = (await send('GET', `/api/flight-requests/${created.body.data.uuid}/authorisation`, client.key)).body.data.token as string;
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, max_altitude: 400 })).toString('base64url')}.${signature}`;
    const keys = createRemoteJWKSet(new URL(`${system.gatewayUrl}/.well-known/jwks.json`));
    let failure: unknown;
    await jwtVerify(forged, keys).catch((error: unknown) => (failure = error));
    expect((failure as { code?: string } | undefined)?.code).to.equal('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('a preview answers the screening outcome and stores nothing: document counts and events are the same before and after', async () => {
    const zone = await send('POST', '/api/zones', system.adminKey, {
      name: 'Preview CTR',
      type: 'CTR',
      restriction: 'REQ_AUTHORISATION',
      lower_limit_m: 0,
      upper_limit_m: 1000,
      authority: 'LVNL',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [5.7, 52.0],
            [5.8, 52.0],
            [5.8, 52.1],
            [5.7, 52.1],
            [5.7, 52.0],
          ],
        ],
      },
    });
    expect(zone.status).to.equal(201);
    // The operator must be known first; a submission elsewhere waits for that.
    await submit(flightRequestBody(client, {}, 5.65));
    const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database('flight-request-service') }).asPromise();
    const events = await captureEvents(system.amqpUrl, system.exchange, ['flight_request.#']);
    try {
      const counts = async () => {
        const names = (await connection.db!.listCollections().toArray()).map(({ name }) => name).sort();
        return Promise.all(names.map(async (name) => [name, await unrecorded(() => connection.db!.collection(name).countDocuments())]));
      };
      const before = await counts();
      const preview = await send('POST', '/api/v1/flight-requests/preview', client.key, flightRequestBody(client, {}, 5.75));
      expect(preview.status).to.equal(200);
      expect(preview.body.data.status).to.equal('Pending');
      expect(preview.body.data.review_items).to.have.length(1);
      expect(preview.body.data.review_items[0]).to.include({ kind: 'zone_authorisation', authority: 'LVNL', zone_id: zone.body.data.id });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await counts()).to.deep.equal(before);
      expect(events.events).to.deep.equal([]);
    } finally {
      await events.close();
      await connection.close();
    }
  });

  it('the OpenAPI document describes the routes, the public ones without a key', async () => {
    const document = (await send('GET', '/api/openapi.json')).body;
    expect(document.paths).to.include.keys(
      '/api/flight-requests/preview',
      '/api/flight-requests/{uuid}/authorisation',
      '/api/authorisations/{jti}',
      '/.well-known/jwks.json',
    );
    expect(document.paths['/.well-known/jwks.json'].get.security).to.deep.equal([]);
    expect(document.paths['/api/authorisations/{jti}'].get.responses).to.not.have.key('401');
  });

  it('the public status route is limited per client IP: past the limit, 429 with Retry-After', async () => {
    const jti = `${client.uuid}.1`;
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let call = 0; call <= AUTHORISATION_CHECKS_PER_IP_PER_MINUTE && !refused; call += 1) {
      const answer = await send('GET', `/api/authorisations/${jti}`);
      if (answer.status === 429) refused = answer;
      else expect(answer.status).to.equal(404);
    }
    expect(refused?.status).to.equal(429);
    expect(Number(refused?.headers.get('retry-after'))).to.be.greaterThan(0);
  });
});
