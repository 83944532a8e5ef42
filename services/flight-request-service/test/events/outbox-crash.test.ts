import { expect } from 'chai';
import { RoutingKeys, type FlightRequestStatusChanged } from '@dfc/contracts';
import { newSharedSetup, operatorPrincipal, startTestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';

describe('outbox: a replica killed between its write and its publish', () => {
  it('when a submission was written with publishing off, then the replica started after it publishes its events', async () => {
    const shared = await newSharedSetup();
    const crashed = await startTestService({ shared, env: { OUTBOX_PUBLISH: 'false' } });
    const events = await crashed.captureEvents();
    try {
      const operatorUuid = await crashed.seedOperator();
      const created = await crashed.call('POST', '/api/flight-requests', { as: operatorPrincipal(operatorUuid), body: submission(operatorUuid) });
      expect(created.status).to.equal(201);
      const uuid = created.body.data.uuid as string;
      await crashed.close();
      expect(events.events).to.deep.equal([]);

      const restarted = await startTestService({ shared });
      try {
        const ofRequest = (event: { type: string; data: unknown }) =>
          event.type === RoutingKeys.flightRequestStatusChanged && (event.data as FlightRequestStatusChanged).flight_request_uuid === uuid;
        await events.next(ofRequest, 10_000);
        await events.next((event) => ofRequest(event) && (event.data as FlightRequestStatusChanged).status === 'Approved', 10_000);
        expect(events.events.filter(ofRequest).map((event) => (event.data as FlightRequestStatusChanged).sequence)).to.deep.equal([1, 2]);
      } finally {
        await restarted.connection.db?.dropDatabase().catch(() => undefined);
        await restarted.close();
      }
    } finally {
      await events.close();
    }
  });
});
