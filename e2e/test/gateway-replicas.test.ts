import { expect } from 'chai';
import { GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

const KEY_LIMIT_PER_MINUTE = 60;

/**
 * The gateway run as replicas do in production: three processes behind one balancer, sharing
 * the limits' database. Bodies go through them to the real services, which alone parse them.
 */
describe('three gateway replicas in front of the system', function () {
  this.timeout(180_000);
  let system: System;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'flight-request-service', 'gateway'],
      replicas: { gateway: 3 },
      serviceEnv: { gateway: { RATE_LIMIT_PER_KEY_PER_MINUTE: String(KEY_LIMIT_PER_MINUTE), RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '1000' } },
    });
    operator = await new GatewayClient(system.gatewayUrl).registerOperatorWithKey();
  });
  after(() => system?.stop());

  describe('GET /api/operators/{uuid} with one key', () => {
    // One call at a time, each to the next gateway: on the local engine concurrent counts can be lost
    // (docs/architecture.md, "The local engine"), on MongoDB they cannot.
    it('when the key sends twice its limit, each call to the next of the three gateways, then within 10 % of the limit are answered 200 and the rest 429', async () => {
      const gateways = system.replicaUrls('gateway');
      expect(gateways).to.have.length(3);
      const statuses: number[] = [];
      for (let call = 0; call < 2 * KEY_LIMIT_PER_MINUTE; call += 1) {
        const gateway = gateways[call % gateways.length]!;
        statuses.push((await fetch(`${gateway}/api/operators/${operator.uuid}`, { headers: { 'x-api-key': operator.key } })).status);
      }
      const allowed = statuses.filter((status) => status === 200).length;
      process.stdout.write(
        `      ${allowed} of ${statuses.length} calls answered 200 at a limit of ${KEY_LIMIT_PER_MINUTE} across ${gateways.length} gateways\n`,
      );
      expect(allowed, statuses.join(' ')).to.be.within(KEY_LIMIT_PER_MINUTE * 0.9, KEY_LIMIT_PER_MINUTE * 1.1);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).to.deep.equal([]);
    });
  });

  describe('bodies, parsed by the service alone', () => {
    // A key of its own: the first operator's is spent on its limit above.
    before(async () => {
      operator = await new GatewayClient(system.gatewayUrl).registerOperatorWithKey();
    });

    const post = (path: string, body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
      fetch(`${system.gatewayUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' as const } : {}),
      });

    it('when POST /api/operators carries malformed JSON, then 400 Malformed JSON body., as before', async () => {
      const response = await post('/api/operators', '{"company_name": "Skyline",');
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Malformed JSON body.' });
      expect(response.headers.get('x-request-id')).to.be.a('string');
    });

    it('when POST /api/operators carries bytes that are not UTF-8, then 400 naming it', async () => {
      const response = await post('/api/operators', new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Request body is not valid UTF-8.' });
    });

    it('when POST /api/flight-requests carries JSON that is not an object, then 422 naming the body', async () => {
      for (const body of ['0', 'null', '[1]', '"text"']) {
        const response = await post('/api/flight-requests', body, { 'x-api-key': operator.key });
        expect(response.status, body).to.equal(422);
        expect(await response.json(), body).to.deep.equal({
          message: 'The body must be a JSON object.',
          errors: { body: ['The body must be a JSON object.'] },
        });
      }
    });

    it('when PATCH /api/operators/{uuid} declares bytes of whitespace only, then 400 Malformed JSON body.', async () => {
      const response = await fetch(`${system.gatewayUrl}/api/operators/${operator.uuid}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-api-key': operator.key },
        body: '\r\n ',
      });
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Malformed JSON body.' });
    });

    it('when POST /api/flight-requests holds a lone surrogate, then 422 naming the field', async () => {
      const response = await post('/api/flight-requests', '{"purpose":"roof \\ud800 inspection"}', { 'x-api-key': operator.key });
      expect(response.status).to.equal(422);
      const body = (await response.json()) as { errors: Record<string, string[]> };
      expect(body.errors).to.have.property('purpose');
    });

    it('when POST /api/flight-requests is not JSON, then 415 from the gateway', async () => {
      const response = await post('/api/flight-requests', 'purpose=roof', {
        'x-api-key': operator.key,
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(response.status).to.equal(415);
      expect(await response.json()).to.deep.equal({ message: 'Request body must be application/json.' });
    });

    it('when POST /api/flight-requests streams more than 1 MiB without a length, then 413 and the connection is closed', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(256 * 1024));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 5; i += 1) controller.enqueue(chunk);
          controller.close();
        },
      });
      const response = await post('/api/flight-requests', body, { 'x-api-key': operator.key });
      expect(response.status).to.equal(413);
      expect(await response.json()).to.deep.equal({ message: 'Request body is too large.' });
      expect(response.headers.get('connection')).to.equal('close');
    });

    it('when POST /api/zones/import comes with an operator key, then 403 before the body is read', async () => {
      const response = await post('/api/zones/import', JSON.stringify({ type: 'FeatureCollection', features: [] }), { 'x-api-key': operator.key });
      expect(response.status).to.equal(403);
    });
  });
});
