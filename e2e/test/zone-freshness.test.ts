import { expect } from 'chai';
import { flightRequestExample, type Principal } from '@dfc/contracts';
import { InternalTokenSigner } from '@dfc/kit/http';
import { GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

const HOUR = 3_600_000;

/**
 * Two flight-request-service processes on one database and broker, each
 * called on its own port (as the gateway's balancing would reach them): a
 * zone created or deleted through one applies to the very next screening at
 * the other, without waiting for the broadcast event or the periodic reload.
 */
describe('zone freshness across two flight-request-service processes', function () {
  this.timeout(300_000);
  let system: System;
  let operator: RegisteredOperator;
  let signer: InternalTokenSigner;
  let replicas: string[];

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'flight-request-service', 'gateway'],
      replicas: { 'flight-request-service': 2 },
      serviceEnv: { 'flight-request-service': { ZONE_RELOAD_INTERVAL_MS: '3600000' } },
    });
    operator = await new GatewayClient(system.gatewayUrl).registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
    signer = new InternalTokenSigner(system.privateKeyPem);
    replicas = system.replicaUrls('flight-request-service');
    expect(replicas).to.have.length(2);
  });
  after(async () => system?.stop());

  const admin: Principal = { sub: 'admin', role: 'admin', key_id: 'e2eadmin00000000' };
  const asOperator = (): Principal => ({ sub: operator.uuid, role: 'operator', operator_uuid: operator.uuid, key_id: operator.keyId });
  // Response bodies are arbitrary JSON asserted on field by field.
  const call = async (replica: string, method: string, path: string, as: Principal, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${replica}${path}`, {
      method,
      headers: { 'X-Internal-Token': await signer.sign(as), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const closure = (lon: number, lat: number, name: string) => ({
    name,
    type: 'TEMPORARY',
    restriction: 'PROHIBITED',
    lower_limit_m: 0,
    upper_limit_m: 1000,
    authority: 'POLICE',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [lon - 0.05, lat - 0.05],
          [lon + 0.1, lat - 0.05],
          [lon + 0.1, lat + 0.1],
          [lon - 0.05, lat + 0.1],
          [lon - 0.05, lat - 0.05],
        ],
      ],
    },
  });
  const flightAt = (lon: number, lat: number) => {
    const start = new Date(Math.ceil((Date.now() + 2 * HOUR) / 1000) * 1000);
    return flightRequestExample({
      operatorUuid: operator.uuid,
      operatorEmail: operator.email,
      start,
      end: new Date(start.getTime() + HOUR),
      corner: [lon, lat],
      side: 0.01,
    });
  };

  it('POST /api/zones through one process, then POST /api/flight-requests through the other at once: the new zone applies, in both directions, every time', async () => {
    for (let round = 0; round < 6; round++) {
      const [writer, screener] = round % 2 === 0 ? [replicas[0]!, replicas[1]!] : [replicas[1]!, replicas[0]!];
      const [lon, lat] = [14 + round * 0.5, 47];
      const zone = await call(writer, 'POST', '/api/zones', admin, closure(lon, lat, `Closure ${round}`));
      expect(zone.status, JSON.stringify(zone.body)).to.equal(201);
      const answer = await call(screener, 'POST', '/api/flight-requests', asOperator(), flightAt(lon, lat));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      expect(answer.body.data.status, `round ${round}`).to.equal('Rejected');
      expect(answer.body.data.review.findings.map((finding: { zone_id?: string }) => finding.zone_id)).to.include(zone.body.data.id);
    }
  });

  it('DELETE /api/zones/{id} through one process, then a submission through the other at once: the zone no longer applies', async () => {
    const [lon, lat] = [18, 47];
    const zone = await call(replicas[0]!, 'POST', '/api/zones', admin, closure(lon, lat, 'Lifted'));
    expect((await call(replicas[1]!, 'POST', '/api/flight-requests', asOperator(), flightAt(lon, lat))).body.data.status).to.equal('Rejected');
    expect((await call(replicas[0]!, 'DELETE', `/api/zones/${zone.body.data.id}`, admin)).status).to.equal(204);
    const answer = await call(replicas[1]!, 'POST', '/api/flight-requests', asOperator(), flightAt(lon, lat));
    expect(answer.body.data.status, JSON.stringify(answer.body.data.review)).to.equal('Approved');
  });
});
