import { expect } from 'chai';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/** Issue 17, trust and privacy, through the gateway: what one client learns of another. */
describe('trust and privacy, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' } });
    client = new GatewayClient(system.gatewayUrl);
  });
  after(() => system?.stop());

  describe('deconfliction findings', () => {
    let first: RegisteredOperator;
    let second: RegisteredOperator;
    before(async () => {
      first = await client.registerOperatorWithKey();
      second = await client.registerOperatorWithKey();
    });

    it("POST /api/flight-requests: when another operator's approved flight overlaps, then the finding carries only the shared volume, never that flight or its operator", async () => {
      const approved = await client.send('POST', '/api/flight-requests', { key: first.key, body: flightRequestBody(first, { max_altitude: 60 }, 6.3) });
      expect(approved.status).to.equal(201);
      expect(approved.body.data.status).to.equal('Approved');

      const overlapping = await client.send('POST', '/api/flight-requests', { key: second.key, body: flightRequestBody(second, {}, 6.3) });
      expect(overlapping.status).to.equal(201);
      const record = overlapping.body.data;
      expect(record.status).to.equal('Pending');
      const finding = record.review.findings.find((entry: { code: string }) => entry.code === 'DECONFLICTION_OVERLAP');
      const toOffset = (utc: string) => utc.replace(/Z$/, '+00:00');
      expect(finding.conflict).to.deep.include({
        start_time: toOffset(approved.body.data.start_time),
        end_time: toOffset(approved.body.data.end_time),
        lower_altitude_m: 0,
        upper_altitude_m: 60,
      });
      expect(finding.conflict.bbox).to.have.length(4);
      expect(finding.message).to.match(/^The flight overlaps an approved flight of another operator from \S+\+00:00 to \S+\+00:00, from 0 m up to 60 m, within \[/);
      expect(finding).not.to.have.property('flight_request_uuid');

      const read = await client.send('GET', `/api/v1/flight-requests/${record.uuid}`, { key: second.key });
      for (const shown of [JSON.stringify(record), JSON.stringify(read.body)]) {
        expect(shown).not.to.contain(approved.body.data.uuid);
        expect(shown).not.to.contain(first.uuid);
      }
    });
  });
});
