import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { FlightRequestStatus } from '@dfc/contracts';
import { unrecorded } from '@dfc/kit/testing';
import { purgeFinalRequests } from '../../src/use-cases/purge-final-requests.js';
import { admin, startTestService, type TestService } from '../support/test-service.js';
import { insertStored, storedRequest } from '../support/stored-request.js';

const DAY_MS = 86_400_000;

describe('purgeFinalRequests (the retention purge)', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
  });
  after(() => t.close());

  /** A request whose last change (its final status, if it has one) was `daysAgo` days ago, with one review-queue row and one idempotency claim. */
  async function stored(status: FlightRequestStatus, daysAgo: number) {
    const changed = new Date(Date.now() - daysAgo * DAY_MS);
    const request = {
      ...storedRequest({
        operatorUuid,
        status,
        start: new Date(changed.getTime() - DAY_MS),
        end: changed,
        items: [{ authority: 'NATIONAL', kind: 'altitude' }],
      }),
      updated_at: changed,
    };
    await insertStored(t, request);
    await t.service.deps.idempotencyKeys.claim(randomUUID(), { request_uuid: request._id, body_sha256: 'b'.repeat(64), created_at: changed });
    return request._id;
  }
  const left = async (uuid: string) =>
    unrecorded(async () => ({
      request: (await t.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).status,
      queueRows: await t.service.deps.reviewQueue.model.countDocuments({ flight_request_uuid: uuid }),
      claims: await t.service.deps.idempotencyKeys.model.countDocuments({ request_uuid: uuid }),
    }));

  it('when requests are past N days in a final status, then they go with their review items and claims; younger, live or Approved ones stay', async () => {
    const purged = await Promise.all((['Rejected', 'Cancelled', 'Expired', 'Rescinded'] as const).map((status) => stored(status, 31)));
    const youngFinal = await stored('Cancelled', 29);
    const oldPending = await stored('Pending', 31);
    const oldApproved = await stored('Approved', 31);

    expect(await purgeFinalRequests(t.service.deps, 30)).to.be.at.least(purged.length);

    for (const uuid of purged) expect(await left(uuid), uuid).to.deep.equal({ request: 404, queueRows: 0, claims: 0 });
    for (const uuid of [youngFinal, oldPending, oldApproved]) expect(await left(uuid), uuid).to.deep.equal({ request: 200, queueRows: 1, claims: 1 });
  });

  it('when two replicas purge at once, then each request is gone once and neither fails', async () => {
    const uuids = await Promise.all(Array.from({ length: 5 }, () => stored('Expired', 40)));
    const [first, second] = await Promise.all([purgeFinalRequests(t.service.deps, 30), purgeFinalRequests(t.service.deps, 30)]);
    expect(first + second).to.be.at.least(uuids.length);
    for (const uuid of uuids) expect((await left(uuid)).request).to.equal(404);
  });
});
