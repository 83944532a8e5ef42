import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { waitFor, unrecorded } from '@dfc/kit/testing';
import type { ReviewItem } from '../../src/domain/review/review-group.js';
import { reviewItemsChanged } from '../../src/domain/events/review-item-events.js';
import { admin, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';

describe('review queue projection (flight_request.review_items_changed)', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => t.close());

  const item = (status: ReviewItem['status'], id = randomUUID()): ReviewItem => ({
    id,
    kind: 'zone_authorisation',
    authority: 'PROJ',
    zone_id: null,
    finding_codes: [],
    message: 'look',
    status,
    reason: null,
    decided_at: null,
    decided_by: null,
  });
  const request = () => ({ _id: randomUUID(), operator_uuid: randomUUID(), created_at: new Date() });
  const row = (id: string) => t.service.deps.reviewQueue.model.findById(id).lean().exec();

  it('when an older version’s event arrives after a newer one, then the newer state stays', async () => {
    const subject = request();
    const pending = item('pending');
    const approved = { ...pending, status: 'approved' as const };
    await t.broker.publish(reviewItemsChanged(subject, 1, [approved]));
    await waitFor(async () => (await row(pending.id))?.status === 'approved');
    await t.broker.publish(reviewItemsChanged(subject, 0, [pending]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await row(pending.id)).to.include({ status: 'approved', request_version: 1 });
  });

  it('when one event is delivered twice, then one row per item', async () => {
    const subject = request();
    const items = [item('pending'), item('pending')];
    const event = reviewItemsChanged(subject, 0, items);
    await t.broker.publish(event);
    await t.broker.publish(event);
    await waitFor(async () => (await unrecorded(() => t.service.deps.reviewQueue.model.countDocuments({ flight_request_uuid: subject._id }))) === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await unrecorded(() => t.service.deps.reviewQueue.model.countDocuments({ flight_request_uuid: subject._id }))).to.equal(2);
  });

  it('GET /api/reviews: when an item is decided, then the queue follows from the request’s own event', async () => {
    const created = await t.call('POST', '/api/zones', {
      as: admin,
      body: {
        name: 'Projection zone',
        type: 'CTR',
        restriction: 'REQ_AUTHORISATION',
        lower_limit_m: 0,
        upper_limit_m: 500,
        authority: 'QUEUE',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [4.8, 52.3],
              [5.0, 52.3],
              [5.0, 52.5],
              [4.8, 52.5],
              [4.8, 52.3],
            ],
          ],
        },
      },
    });
    expect(created.status).to.equal(201);
    const operatorUuid = await t.seedOperator();
    const submitted = (await t.call('POST', '/api/flight-requests', { as: admin, body: submission(operatorUuid) })).body.data;
    const itemId = submitted.review.items[0].id as string;
    const queued = () => t.call('GET', '/api/reviews?per_page=100', { as: reviewerPrincipal('QUEUE') });
    await waitFor(async () => (await queued()).body.data.some((entry: { id: string }) => entry.id === itemId));
    expect((await t.call('POST', `/api/reviews/${itemId}/decision`, { as: admin, body: { decision: 'approve', reason: 'ok' } })).status).to.equal(
      200,
    );
    expect((await queued()).body.data.some((entry: { id: string }) => entry.id === itemId)).to.equal(false);
    await waitFor(async () => (await row(itemId))?.status === 'approved');
    expect((await queued()).body.meta.total).to.equal(0);
  });
});
