import { expect } from 'chai';
import { registerOperator, startService, type TestService } from '../support/service.js';

describe('operations endpoints', () => {
  let service: TestService;

  before(async () => {
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  it('GET /healthz answers without a token', async () => {
    const reply = await service.call('GET', '/healthz', { as: null });
    expect(reply.status).to.equal(200);
  });

  it('GET /readyz reports the database and the broker channels ready', async () => {
    const reply = await service.call('GET', '/readyz', { as: null });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ status: 'ready', checks: { mongo: true, broker_channels: true, broker_consumers: true } });
  });

  it('GET /metrics exposes the domain counters and HTTP latency by route', async () => {
    await registerOperator(service);
    const response = await fetch(`${service.url}/metrics`);
    const text = await response.text();
    for (const name of [
      'operator_registrations_total',
      'api_keys_issued_total',
      'api_keys_revoked_total',
      'api_key_verifications_total',
      'events_published_total',
      'outbox_lag_seconds',
    ]) {
      expect(text).to.include(`# TYPE ${name}`);
    }
    expect(text).to.match(/http_request_duration_seconds_count\{[^}]*route="\/api\/operators"[^}]*status="201"/);
  });

  it('an unknown path is 404 "Not Found."', async () => {
    const reply = await service.call('GET', '/api/nothing-here');
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({ message: 'Not Found.' });
  });
});
