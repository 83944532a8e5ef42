import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { waitFor, unrecorded } from '@dfc/kit/testing';
import { schemaErrors } from '@dfc/kit/validation';
import {
  CascadeRejectionPayload,
  CredentialsChangedPayload,
  newEvent,
  ReviewCompletePayload,
  RoutingKeys,
  StatusChangePayload,
  verifyWebhookSignature,
} from '@dfc/contracts';
import { Webhook } from 'standardwebhooks';
import { firstAttemptDue } from '../../src/domain/attempt-message.js';
import { attemptDelivery } from '../../src/use-cases/attempt-delivery.js';
import { fanOutEvent } from '../../src/use-cases/fan-out-event.js';
import {
  api,
  cascadeRejection,
  cleanUp,
  freshNames,
  operator,
  type Receiver,
  Receivers,
  registerEndpoint,
  reviewCompleted,
  sleep,
  startService,
  statusChanged,
  type TestService,
} from '../support.js';

/** How the API and its webhooks write every timestamp: numeric offset, whole seconds. */
const offset = (text: string) => `${new Date(text).toISOString().slice(0, 19)}+00:00`;

describe('events from the broker → webhook deliveries', () => {
  const names = freshNames();
  let service: TestService;
  const receivers = new Receivers();
  const receiver = () => receivers.start();

  before(async () => {
    service = await startService(names);
  });
  after(async () => {
    await receivers.closeAll();
    await service?.close();
    await cleanUp(names);
  });

  describe('flight_request.status_changed', () => {
    it('when published, then exactly one correctly signed status_change arrives with the documented headers and body', async () => {
      const alice = operator();
      const hook = await receiver();
      const endpoint = await registerEndpoint(service.url, alice, `${hook.url}/hooks`);
      const event = statusChanged(alice.operator_uuid!, { status: 'Approved', previous_status: 'Pending' });
      await service.broker.publish(event);
      await waitFor(() => hook.requests.length === 1);
      await sleep(200);
      expect(hook.requests).to.have.length(1);
      const [request] = hook.requests;
      expect(request!.path).to.equal('/hooks');
      expect(request!.headers['content-type']).to.equal('application/json');
      expect(request!.headers['user-agent']).to.equal('dfc-webhooks/1.0');
      expect(request!.headers['x-webhook-id']).to.equal(event.id);
      expect(request!.headers['x-webhook-event']).to.equal('status_change');

      const header = String(request!.headers['x-webhook-signature']);
      expect(verifyWebhookSignature({ rawBody: request!.rawBody, header, secrets: endpoint.secret }).valid).to.equal(true);
      // Independently of the helper: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
      expect(match, header).to.not.equal(null);
      const t = Number(match![1]);
      expect(Math.abs(t - Date.now() / 1000)).to.be.lessThan(5);
      expect(match![2]).to.equal(createHmac('sha256', endpoint.secret).update(`${t}.${request!.rawBody}`).digest('hex'));

      const body = JSON.parse(request!.rawBody);
      expect(schemaErrors(StatusChangePayload, body)).to.deep.equal({});
      expect(body).to.include({ id: event.id, event: 'status_change', created_at: offset(event.occurred_at) });
      expect(body.data).to.deep.equal({ ...event.data, changed_at: offset(event.data.changed_at), uuid: event.data.flight_request_uuid });
      expect(body.data.sequence).to.equal(2);
    });

    it('when delivered, then the standardwebhooks package verifies it with the secret as shown (webhook-id is the event id)', async () => {
      const alice = operator();
      const hook = await receiver();
      const endpoint = await registerEndpoint(service.url, alice, hook.url);
      const event = statusChanged(alice.operator_uuid!);
      await service.broker.publish(event);
      await waitFor(() => hook.requests.length === 1);
      const [request] = hook.requests;
      expect(request!.headers['webhook-id']).to.equal(event.id);
      expect(request!.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
      const headers = Object.fromEntries(Object.entries(request!.headers).map(([name, value]) => [name, String(value)]));
      const verified = new Webhook(endpoint.secret).verify(request!.rawBody, headers);
      expect(verified).to.deep.equal(JSON.parse(request!.rawBody));
      const forged = { ...headers, 'webhook-id': event.id.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) };
      expect(() => new Webhook(endpoint.secret).verify(request!.rawBody, forged)).to.throw();
    });

    it('when the internal event carries a field the contract does not name, then the subscriber never sees it', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url);
      const event = statusChanged(alice.operator_uuid!);
      await service.broker.publish({ ...event, data: { ...event.data, internal_note: 'reviewer remarks' } });
      await waitFor(() => hook.requests.length === 1);
      const body = hook.bodies()[0]!;
      expect(body['data']).to.not.have.property('internal_note');
      expect(schemaErrors(StatusChangePayload, body)).to.deep.equal({});
    });

    it('when the same broker message is published twice, then one delivery exists and one request arrives', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url);
      const event = statusChanged(alice.operator_uuid!);
      await service.broker.publish(event);
      await service.broker.publish(event);
      await waitFor(() => hook.requests.length >= 1);
      await sleep(400);
      expect(hook.requests).to.have.length(1);
      const stored = await unrecorded(() => service.connection.db!.collection('webhook_deliveries').countDocuments({ event_id: event.id }));
      expect(stored).to.equal(1);
    });

    it('when the broker redelivers an event whose deliveries were stored but whose messages were never sent (a crash between the two), then each delivery arrives once', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, `${hook.url}/one`);
      await registerEndpoint(service.url, alice, `${hook.url}/two`);
      const event = statusChanged(alice.operator_uuid!);
      const { deps } = service.service;
      // The first handling stores the deliveries and dies before the broker has their messages.
      await fanOutEvent({ ...deps, scheduler: { ...deps.scheduler, now: () => Promise.resolve() } }, event);
      await sleep(300);
      expect(hook.requests).to.have.length(0);
      await fanOutEvent(deps, event, true);
      await waitFor(() => hook.requests.length >= 2);
      await sleep(400);
      expect(hook.requests.map((request) => request.path).sort()).to.deep.equal(['/one', '/two']);
      const stored = await unrecorded(() =>
        service.connection.db!.collection('webhook_deliveries').countDocuments({ event_id: event.id, status: 'succeeded' }),
      );
      expect(stored).to.equal(2);
    });

    it('when the broker redelivers the first message of a delivery already sent, then the attempt reads the delivery and sends nothing', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url);
      const event = statusChanged(alice.operator_uuid!);
      await service.broker.publish(event);
      await waitFor(
        async () =>
          (await unrecorded(() =>
            service.connection.db!.collection('webhook_deliveries').countDocuments({ event_id: event.id, status: 'succeeded' }),
          )) === 1,
      );
      const { deps } = service.service;
      const stored = await unrecorded(() => service.connection.db!.collection<{ _id: string }>('webhook_deliveries').findOne({ event_id: event.id }));
      const sent = await deps.deliveries.find(stored!._id);
      await attemptDelivery(deps, firstAttemptDue(sent!), true);
      await sleep(200);
      expect(hook.requests).to.have.length(1);
    });

    it('when an operator has two endpoints, then each gets its own delivery, signed with its own secret', async () => {
      const alice = operator();
      const [first, second] = [await receiver(), await receiver()];
      const one = await registerEndpoint(service.url, alice, first.url);
      const two = await registerEndpoint(service.url, alice, second.url);
      await service.broker.publish(statusChanged(alice.operator_uuid!));
      await waitFor(() => first.requests.length === 1 && second.requests.length === 1);
      const verify = (hook: Receiver, secret: string) =>
        verifyWebhookSignature({
          rawBody: hook.requests[0]!.rawBody,
          header: String(hook.requests[0]!.headers['x-webhook-signature']),
          secrets: secret,
        }).valid;
      expect(verify(first, one.secret)).to.equal(true);
      expect(verify(second, two.secret)).to.equal(true);
      expect(verify(first, two.secret)).to.equal(false);
    });
  });

  describe('operator isolation', () => {
    it("when an event concerns one operator, then another operator's endpoint receives nothing", async () => {
      const [alice, bob] = [operator(), operator()];
      const [alices, bobs] = [await receiver(), await receiver()];
      await registerEndpoint(service.url, alice, alices.url);
      await registerEndpoint(service.url, bob, bobs.url);
      await service.broker.publish(statusChanged(alice.operator_uuid!));
      await service.broker.publish(cascadeRejection(alice.operator_uuid!));
      await waitFor(() => alices.requests.length === 2);
      await sleep(300);
      expect(bobs.requests).to.have.length(0);
    });

    it('when an event names no operator, then nobody receives it', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url);
      const orphan = { ...statusChanged(alice.operator_uuid!), operator_uuid: null };
      await service.broker.publish(orphan);
      await service.broker.publish(statusChanged(alice.operator_uuid!));
      await waitFor(() => hook.requests.length === 1);
      await sleep(300);
      expect(hook.requests.map((request) => request.headers['x-webhook-id'])).not.to.include(orphan.id);
    });
  });

  describe('subscriptions', () => {
    it('when an endpoint subscribed to review_complete only, then status_change and cascade_rejection are not sent to it', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url, ['review_complete']);
      await service.broker.publish(statusChanged(alice.operator_uuid!));
      await service.broker.publish(cascadeRejection(alice.operator_uuid!));
      const completed = reviewCompleted(alice.operator_uuid!);
      await service.broker.publish(completed);
      await waitFor(() => hook.requests.length === 1);
      await sleep(300);
      expect(hook.requests).to.have.length(1);
      expect(hook.bodies()[0]).to.include({ id: completed.id, event: 'review_complete' });
    });

    it('when an endpoint is disabled, then it gets no deliveries for new events', async () => {
      const alice = operator();
      const hook = await receiver();
      const endpoint = await registerEndpoint(service.url, alice, hook.url);
      const patched = await api(service.url, alice, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: false });
      expect(patched.status).to.equal(200);
      const event = statusChanged(alice.operator_uuid!);
      await service.broker.publish(event);
      await sleep(400);
      expect(hook.requests).to.have.length(0);
      expect(await unrecorded(() => service.connection.db!.collection('webhook_deliveries').countDocuments({ event_id: event.id }))).to.equal(0);
    });
  });

  describe('operator.credentials_changed', () => {
    const credentialsChanged = (operatorUuid: string) =>
      newEvent(RoutingKeys.operatorCredentialsChanged, operatorUuid, {
        uuid: operatorUuid,
        changes: ['api_key_revoked'],
        notify_email: 'owner-before@example.org',
        key_id: '0123456789abcdef',
      });

    it("when an operator's credentials change, then every enabled endpoint of the operator gets a signed credentials_changed, whatever it subscribed to, without the notice's email", async () => {
      const alice = operator();
      const [onlyReviews, everything, disabled] = [await receiver(), await receiver(), await receiver()];
      const reviewsEndpoint = await registerEndpoint(service.url, alice, onlyReviews.url, ['review_complete']);
      await registerEndpoint(service.url, alice, everything.url);
      const off = await registerEndpoint(service.url, alice, disabled.url);
      expect((await api(service.url, alice, 'PATCH', `/api/webhooks/${off.id}`, { enabled: false })).status).to.equal(200);
      const bystander = await receiver();
      await registerEndpoint(service.url, operator(), bystander.url);

      const event = credentialsChanged(alice.operator_uuid!);
      await service.broker.publish(event);
      await waitFor(() => onlyReviews.requests.length === 1 && everything.requests.length === 1);
      await sleep(300);
      expect([disabled.requests.length, bystander.requests.length], 'the disabled endpoint, another operator').to.deep.equal([0, 0]);

      const [request] = onlyReviews.requests;
      expect(request!.headers['x-webhook-event']).to.equal('credentials_changed');
      expect(
        verifyWebhookSignature({
          rawBody: request!.rawBody,
          header: String(request!.headers['x-webhook-signature']),
          secrets: reviewsEndpoint.secret,
        }).valid,
      ).to.equal(true);
      const body = JSON.parse(request!.rawBody);
      expect(schemaErrors(CredentialsChangedPayload, body)).to.deep.equal({});
      expect(body).to.deep.equal({
        id: event.id,
        event: 'credentials_changed',
        created_at: offset(event.occurred_at),
        data: { operator_uuid: alice.operator_uuid, changes: ['api_key_revoked'], key_id: '0123456789abcdef', changed_at: offset(event.occurred_at) },
      });
      expect(request!.rawBody).to.not.include('owner-before@example.org');

      const log = (await api(service.url, alice, 'GET', `/api/webhooks/${reviewsEndpoint.id}/deliveries`)).body;
      expect(log.data.map((delivery: { event: string }) => delivery.event)).to.deep.equal(['credentials_changed']);
    });
  });

  describe('bodies', () => {
    it('when a cascade_rejection is published, then its body carries the rejected and cascaded items and the reason', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url, ['cascade_rejection']);
      const event = cascadeRejection(alice.operator_uuid!);
      await service.broker.publish(event);
      await waitFor(() => hook.requests.length === 1);
      const body = hook.bodies()[0]!;
      expect(body['event']).to.equal('cascade_rejection');
      expect(hook.requests[0]!.headers['x-webhook-event']).to.equal('cascade_rejection');
      expect(schemaErrors(CascadeRejectionPayload, body)).to.deep.equal({});
      const item = (summary: typeof event.data.rejected_item) => ({ ...summary, decided_at: offset(summary.decided_at!) });
      expect(body['data']).to.deep.equal({
        ...event.data,
        rejected_item: item(event.data.rejected_item),
        cascaded_items: event.data.cascaded_items.map(item),
        occurred_at: offset(event.data.occurred_at),
        uuid: event.data.flight_request_uuid,
        sequence: null,
      });
      expect(body['data'].cascaded_items).to.have.length(1);
    });

    it('when a review_complete is published, then its body carries the group summary', async () => {
      const alice = operator();
      const hook = await receiver();
      await registerEndpoint(service.url, alice, hook.url, ['review_complete']);
      const event = reviewCompleted(alice.operator_uuid!);
      await service.broker.publish(event);
      await waitFor(() => hook.requests.length === 1);
      const body = hook.bodies()[0]!;
      expect(body['event']).to.equal('review_complete');
      expect(body['data'].counts).to.deep.equal({ total: 2, approved: 2, rejected: 0, cascade_rejected: 0, withdrawn: 0 });
      expect(body['data'].outcome).to.equal('Approved');
      expect(body['created_at']).to.equal(offset(event.occurred_at));
      expect(schemaErrors(ReviewCompletePayload, body)).to.deep.equal({});
    });
  });

  describe('metrics', () => {
    it('when deliveries were made, then /metrics shows consumed events, outcomes, latency and queue depth', async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      expect(text).to.match(/webhook_events_consumed_total\{type="flight_request.status_changed",service="webhook-service"\} [1-9]/);
      expect(text).to.match(/webhook_attempts_total\{outcome="succeeded",service="webhook-service"\} [1-9]/);
      expect(text).to.include('webhook_attempt_duration_seconds_bucket');
      expect(text).to.match(/webhook_delivery_latency_seconds_count\{service="webhook-service"\} [1-9]/);
      expect(text).to.match(/webhook_backlog_oldest_due_seconds\{service="webhook-service"\} [\d.]+/);
      expect(text).to.match(/webhook_endpoints_cooling_off\{service="webhook-service"\} \d+/);
    });
  });
});
