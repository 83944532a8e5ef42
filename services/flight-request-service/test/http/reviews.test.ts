import { expect } from 'chai';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';
import mongoose, { type mongo } from 'mongoose';
import { createLogger } from '@dfc/kit/logging';
import { OutboxRelay } from '@dfc/kit/outbox';
import { listRequest } from '@dfc/kit/pagination';
import { waitFor, type CapturedEvents } from '@dfc/kit/testing';
import { InternalRoutingKeys } from '../../src/messaging.js';
import { FlightRequestStore } from '../../src/store/flight-request-store.js';
import { flightRequestModel } from '../../src/store/flight-request-model.js';
import { ReviewQueueStore } from '../../src/store/review-queue-store.js';
import { reviewQueueModel } from '../../src/store/review-item-model.js';
import { listReviewItems } from '../../src/use-cases/list-review-items.js';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { insertStored, storedRequest } from '../support/stored-request.js';
import { featureCollection, isoZ, square, submission } from '../support/fixtures.js';

const HOUR = 3_600_000;

describe('reviews', () => {
  let t: TestService;
  let operatorUuid: string;
  let events: CapturedEvents;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
    events = await t.captureEvents();
  });
  after(async () => {
    await events.close();
    await t.close();
  });

  /** A Pending request with one item for each named authority, straight in the store. */
  async function pendingWith(...authorities: string[]) {
    const request = storedRequest({
      operatorUuid,
      status: 'Pending',
      start: new Date(Date.now() + 2 * HOUR),
      end: new Date(Date.now() + 3 * HOUR),
      items: authorities.map((authority) => ({ authority, kind: authority === 'NATIONAL' ? 'altitude' : 'zone_authorisation' })),
    });
    await insertStored(t, request);
    return { uuid: request._id, itemIds: request.review.items.map((item) => item.id) };
  }

  const decide = (itemId: string, body: unknown, as = admin) => t.call('POST', `/api/reviews/${itemId}/decision`, { as, body });
  const record = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data;
  /** The request's public events (the review queue's internal review_items_changed left out). */
  const eventsFor = (uuid: string) =>
    events.events.filter(
      (event) =>
        event.type !== InternalRoutingKeys.reviewItemsChanged && (event.data as { flight_request_uuid?: string }).flight_request_uuid === uuid,
    );
  const waitForEvent = (uuid: string, type: string) =>
    events.next((event) => event.type === type && (event.data as { flight_request_uuid?: string }).flight_request_uuid === uuid);

  describe('GET /api/reviews', () => {
    it('when a reviewer lists, then only pending items of its authority, each with its request summary', async () => {
      const { uuid, itemIds } = await pendingWith('LVNL', 'NATIONAL');
      const response = await t.call('GET', '/api/reviews?per_page=100', { as: reviewerPrincipal('LVNL') });
      expect(response.status).to.equal(200);
      const entry = response.body.data.find((candidate: { id: string }) => candidate.id === itemIds[0]);
      expect(entry).to.include({ authority: 'LVNL', status: 'pending', kind: 'zone_authorisation' });
      expect(entry.flight_request).to.include({ uuid, operator_uuid: operatorUuid, status: 'Pending' });
      expect(response.body.data.every((candidate: { authority: string }) => candidate.authority === 'LVNL')).to.equal(true);
      expect(response.body.meta).to.include.keys('current_page', 'last_page', 'total');
    });

    it('when an admin lists with an authority filter, then that authority’s items only; without, then all', async () => {
      await pendingWith('MIL');
      const filtered = await t.call('GET', '/api/reviews?authority=MIL', { as: admin });
      expect(filtered.body.data.length).to.be.greaterThan(0);
      expect(filtered.body.data.every((entry: { authority: string }) => entry.authority === 'MIL')).to.equal(true);
      const all = await t.call('GET', '/api/reviews?per_page=100', { as: admin });
      expect(new Set(all.body.data.map((entry: { authority: string }) => entry.authority))).to.include.members(['MIL', 'LVNL', 'NATIONAL']);
    });

    it('when an operator lists, then 403', async () => {
      expect((await t.call('GET', '/api/reviews', { as: operatorPrincipal(operatorUuid) })).status).to.equal(403);
    });

    it('when a page holds several requests sharing airspace, then each entry shows what it shares with the others, and the page takes the same few queries however many entries it holds', async () => {
      const [a, b, c, d] = await Promise.all([t.seedOperator(), t.seedOperator(), t.seedOperator(), t.seedOperator()]);
      const start = new Date(Math.ceil((Date.now() + 50 * HOUR) / 1000) * 1000);
      // A chain along one parallel at 200 m (a NATIONAL review each): A meets B and B's second, B meets C, D is alone.
      const placed: Array<[string, number]> = [
        [a, 14.0],
        [b, 14.005],
        [b, 14.003],
        [c, 14.012],
        [d, 14.5],
      ];
      const uuids: string[] = [];
      for (const [owner, lon] of placed) {
        const answer = await t.call('POST', '/api/flight-requests', {
          as: operatorPrincipal(owner),
          body: submission(owner, {
            flight_area: featureCollection(square(lon, 52.7)),
            start_time: isoZ(start),
            end_time: isoZ(new Date(start.getTime() + HOUR)),
            max_altitude: 200,
          }),
        });
        expect(answer.body.data.status).to.equal('Pending');
        uuids.push(answer.body.data.uuid as string);
      }
      const reviewer = reviewerPrincipal('NATIONAL');
      type Entry = { flight_request: { uuid: string }; competing: Array<{ bbox: number[] }> };
      const listed = await waitFor(async () => {
        const entries = (await t.call('GET', '/api/reviews?per_page=100', { as: reviewer })).body.data as Entry[];
        return uuids.every((uuid) => entries.some((entry) => entry.flight_request.uuid === uuid)) ? entries : undefined;
      }, 15_000);
      const byCorner = (x: number[], y: number[]) => x[0]! - y[0]! || x[2]! - y[2]!;
      const shared = (uuid: string) =>
        listed
          .find((entry) => entry.flight_request.uuid === uuid)!
          .competing.map((volume) => volume.bbox)
          .sort(byCorner);
      // Every shared box spans the squares' one row (52.7–52.71): each entry's boxes by their west and east edges.
      const spans = (uuid: string) =>
        shared(uuid).map(([west, south, east, north]) => {
          expect([south, north]).to.deep.equal([52.7, 52.71]);
          return `${west}–${east}`;
        });
      expect(uuids.map(spans)).to.deep.equal([
        ['14.003–14.01', '14.005–14.01'], // A: B's second and B
        ['14.005–14.01', '14.012–14.015'], // B: A and C
        ['14.003–14.01', '14.012–14.013'], // B's second: A and C
        ['14.012–14.013', '14.012–14.015'], // C: B's second and B
        [], // D: nobody
      ]);

      // The same page through stores on a connection of the test's own, every query it sends watched.
      const filters: Array<{ collection: string; filter: Record<string, unknown> }> = [];
      const watched = await mongoose.createConnection(t.shared.mongoUrl, { dbName: t.shared.database, monitorCommands: true }).asPromise();
      watched.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
        if (event.commandName === 'find')
          filters.push({ collection: String(event.command['find']), filter: event.command['filter'] as Record<string, unknown> });
      });
      const relay = new OutboxRelay(t.broker, createLogger('reviews-test', 'silent'));
      try {
        const deps = {
          ...t.service.deps,
          requests: new FlightRequestStore(flightRequestModel(watched), relay),
          reviewQueue: new ReviewQueueStore(reviewQueueModel(watched)),
        };
        const page = await listReviewItems(deps, reviewer, { page: 1, per_page: 100 }, listRequest({ page: 1, per_page: 100 }, true));
        expect(page.rows.map((row) => row.doc._id).sort()).to.deep.equal(listed.map((entry) => entry.flight_request.uuid).sort());
        for (const row of page.rows) expect(row.competing.map((volume) => volume.bbox).sort(byCorner)).to.deep.equal(shared(row.doc._id));
        const requestReads = filters.filter(({ collection }) => collection === 'flight_requests').map(({ filter }) => filter);
        const byId = requestReads.filter((filter) => '_id' in filter);
        // One `$in` of the page's requests, or on the local engine one equality per request (findWhereIn).
        expect(byId.length === 1 || byId.length === new Set(page.rows.map((row) => row.doc._id)).size, JSON.stringify(byId)).to.equal(true);
        expect(requestReads.filter((filter) => !('_id' in filter))).to.have.length(1);
        expect(filters.filter(({ collection }) => collection === 'review_items')).to.have.length(1);
      } finally {
        await relay.stop();
        await watched.close();
      }
    });
  });

  describe('POST /api/reviews/{id}/decision', () => {
    it('when the only item is approved, then the request is Approved, review_completed and status_changed are published', async () => {
      const { uuid, itemIds } = await pendingWith('NATIONAL');
      const response = await decide(itemIds[0]!, { decision: 'approve', reason: 'Below the CTR' }, reviewerPrincipal('NATIONAL'));
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({ id: itemIds[0], status: 'approved', reason: 'Below the CTR', decided_by: 'reviewer:NATIONAL' });
      expect(response.body.data.flight_request.status).to.equal('Approved');
      const after = await record(uuid);
      expect(after.status_history.at(-1)).to.include({ status: 'Approved', actor: 'reviewer:NATIONAL', reason: 'Below the CTR' });
      expect(after.review.complete).to.equal(true);
      const completed = await waitForEvent(uuid, RoutingKeys.flightRequestReviewCompleted);
      expect(completed.data).to.deep.include({
        outcome: 'Approved',
        counts: { total: 1, approved: 1, rejected: 0, cascade_rejected: 0, withdrawn: 0 },
      });
      const changed = await waitForEvent(uuid, RoutingKeys.flightRequestStatusChanged);
      expect(changed.data).to.include({ previous_status: 'Pending', status: 'Approved', actor: 'reviewer:NATIONAL' });
    });

    it('when one of two items is approved, then the request stays Pending and no group event is sent', async () => {
      const { uuid, itemIds } = await pendingWith('LVNL', 'NATIONAL');
      expect((await decide(itemIds[0]!, { decision: 'approve', reason: 'fine' })).status).to.equal(200);
      expect((await record(uuid)).status).to.equal('Pending');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(eventsFor(uuid)).to.deep.equal([]);
    });

    it('when an item is rejected, then the others are cascade-rejected and cascade_rejection, review_completed, status_changed follow', async () => {
      const { uuid, itemIds } = await pendingWith('LVNL', 'NATIONAL', 'MIL');
      await decide(itemIds[2]!, { decision: 'approve', reason: 'no military activity' });
      const response = await decide(itemIds[1]!, { decision: 'reject', reason: 'Too high' }, reviewerPrincipal('NATIONAL'));
      expect(response.status).to.equal(200);
      const after = await record(uuid);
      expect(after.status).to.equal('Rejected');
      expect(after.review.items.map((item: { status: string }) => item.status)).to.deep.equal(['cascade_rejected', 'rejected', 'approved']);
      const cascade = await waitForEvent(uuid, RoutingKeys.flightRequestCascadeRejection);
      expect(cascade.data).to.deep.include({ reason: 'Too high' });
      expect((cascade.data as { rejected_item: { id: string } }).rejected_item.id).to.equal(itemIds[1]);
      expect(
        (cascade.data as { cascaded_items: Array<{ id: string; status: string }> }).cascaded_items.map((item) => [item.id, item.status]),
      ).to.deep.equal([[itemIds[0], 'cascade_rejected']]);
      const completed = await waitForEvent(uuid, RoutingKeys.flightRequestReviewCompleted);
      expect(completed.data).to.deep.include({
        outcome: 'Rejected',
        counts: { total: 3, approved: 1, rejected: 1, cascade_rejected: 1, withdrawn: 0 },
      });
      await waitForEvent(uuid, RoutingKeys.flightRequestStatusChanged);
      expect(eventsFor(uuid).map((event) => event.type)).to.deep.equal([
        RoutingKeys.flightRequestCascadeRejection,
        RoutingKeys.flightRequestReviewCompleted,
        RoutingKeys.flightRequestStatusChanged,
      ]);
    });

    it('when a decided item is decided again, then 409', async () => {
      const { itemIds } = await pendingWith('NATIONAL');
      await decide(itemIds[0]!, { decision: 'approve', reason: 'ok' });
      const again = await decide(itemIds[0]!, { decision: 'reject', reason: 'changed my mind' });
      expect(again.status).to.equal(409);
      expect(again.body.message).to.equal('The review item is already approved.');
    });

    it('when the request was cancelled, then deciding its withdrawn item is 409', async () => {
      const { uuid, itemIds } = await pendingWith('NATIONAL');
      await t.call('DELETE', `/api/flight-requests/${uuid}`, { as: operatorPrincipal(operatorUuid), body: { reason: 'not needed' } });
      const response = await decide(itemIds[0]!, { decision: 'approve', reason: 'ok' });
      expect(response.status).to.equal(409);
      expect(response.body.message).to.equal('The review item is already withdrawn.');
    });

    it('when a reviewer of another authority decides, then 403 and nothing changes', async () => {
      const { uuid, itemIds } = await pendingWith('LVNL');
      const response = await decide(itemIds[0]!, { decision: 'approve', reason: 'ok' }, reviewerPrincipal('NATIONAL'));
      expect(response.status).to.equal(403);
      expect((await record(uuid)).review.items[0].status).to.equal('pending');
    });

    it('when the body is invalid, then 422 names decision and reason', async () => {
      const { itemIds } = await pendingWith('NATIONAL');
      const response = await decide(itemIds[0]!, { decision: 'maybe', reason: '' });
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.keys('decision', 'reason');
    });

    it('when the item does not exist, then 404', async () => {
      expect((await decide('00000000-0000-4000-8000-000000000000', { decision: 'approve', reason: 'ok' })).status).to.equal(404);
    });
  });

  describe('races', () => {
    it('when an approval and a rejection of one item race, then exactly one wins and the record matches it', async () => {
      const { uuid, itemIds } = await pendingWith('NATIONAL');
      const [approve, reject] = await Promise.all([
        decide(itemIds[0]!, { decision: 'approve', reason: 'yes' }),
        decide(itemIds[0]!, { decision: 'reject', reason: 'no' }),
      ]);
      expect([approve.status, reject.status].sort()).to.deep.equal([200, 409]);
      const winner = approve.status === 200 ? 'Approved' : 'Rejected';
      const after = await record(uuid);
      expect(after.status).to.equal(winner);
      expect(after.status_history.map((entry: { status: string }) => entry.status)).to.deep.equal(['Pending', winner]);
      await waitForEvent(uuid, RoutingKeys.flightRequestStatusChanged);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(eventsFor(uuid).map((event) => event.type)).to.deep.equal([
        RoutingKeys.flightRequestReviewCompleted,
        RoutingKeys.flightRequestStatusChanged,
      ]);
    });

    it('when two reviewers decide two items of one request at once, then both land and the group completes once', async () => {
      const { uuid, itemIds } = await pendingWith('LVNL', 'NATIONAL');
      const answers = await Promise.all([
        decide(itemIds[0]!, { decision: 'approve', reason: 'a' }, reviewerPrincipal('LVNL')),
        decide(itemIds[1]!, { decision: 'approve', reason: 'b' }, reviewerPrincipal('NATIONAL')),
      ]);
      expect(answers.map((answer) => answer.status)).to.deep.equal([200, 200]);
      expect((await record(uuid)).status).to.equal('Approved');
      await waitForEvent(uuid, RoutingKeys.flightRequestStatusChanged);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(eventsFor(uuid).filter((event) => event.type === RoutingKeys.flightRequestReviewCompleted)).to.have.length(1);
    });

    it('when a rejection and a cancellation race, then exactly one wins, with exactly its status_changed event', async () => {
      const { uuid, itemIds } = await pendingWith('NATIONAL');
      const [rejection, cancellation] = await Promise.all([
        decide(itemIds[0]!, { decision: 'reject', reason: 'no' }),
        t.call('DELETE', `/api/flight-requests/${uuid}`, { as: operatorPrincipal(operatorUuid), body: { reason: 'withdrawn' } }),
      ]);
      expect([rejection.status, cancellation.status].sort()).to.deep.equal([200, 409]);
      const winner = rejection.status === 200 ? 'Rejected' : 'Cancelled';
      const after = await record(uuid);
      expect(after.status).to.equal(winner);
      expect(after.review.items[0].status).to.equal(winner === 'Rejected' ? 'rejected' : 'withdrawn');
      await waitForEvent(uuid, RoutingKeys.flightRequestStatusChanged);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changes = eventsFor(uuid).filter((event) => event.type === RoutingKeys.flightRequestStatusChanged) as EventEnvelope<{ status: string }>[];
      expect(changes.map((event) => event.data.status)).to.deep.equal([winner]);
    });
  });
});
