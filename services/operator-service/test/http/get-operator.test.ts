import { expect } from 'chai';
import { admin, anonymous, operatorPrincipal, registerOperator, reviewer, startService, system, type TestService } from '../support/service.js';

describe('GET /api/operators/{uuid}', () => {
  let service: TestService;
  let operator: Awaited<ReturnType<typeof registerOperator>>;
  let other: Awaited<ReturnType<typeof registerOperator>>;

  before(async () => {
    service = await startService();
    operator = await registerOperator(service);
    other = await registerOperator(service);
  });

  after(async () => {
    await service?.close();
  });

  const get = (uuid: string, options: Parameters<TestService['call']>[2] = {}) => service.call('GET', `/api/operators/${uuid}`, options);

  it('when the operator reads itself with its key, then 200 with the record as registered', async () => {
    const reply = await get(operator.uuid, { as: operatorPrincipal(operator.uuid) });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ data: operator.record });
  });

  it('when a reviewer reads an operator, then 200', async () => {
    const reply = await get(operator.uuid, { as: reviewer });
    expect(reply.status).to.equal(200);
    expect(reply.body.data.uuid).to.equal(operator.uuid);
  });

  it('when an admin reads an operator, then 200', async () => {
    expect((await get(operator.uuid, { as: admin })).status).to.equal(200);
  });

  it('when the uuid is written in upper case, then it names the same operator', async () => {
    const reply = await get(operator.uuid.toUpperCase(), { as: admin });
    expect(reply.status).to.equal(200);
    expect(reply.body.data.uuid).to.equal(operator.uuid);
  });

  it("when another operator's key asks, then 404 as if it did not exist", async () => {
    const reply = await get(operator.uuid, { as: operatorPrincipal(other.uuid) });
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({ message: 'Not Found.' });
  });

  it('when no operator has the uuid, then 404 "Not Found."', async () => {
    const reply = await get('6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11', { as: admin });
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({ message: 'Not Found.' });
  });

  it('when the uuid is not a uuid, then 404', async () => {
    const reply = await get('not-a-uuid', { as: admin });
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({ message: 'Not Found.' });
  });

  it('when the call is anonymous (no API key), then 401', async () => {
    const reply = await get(operator.uuid, { as: anonymous });
    expect(reply.status).to.equal(401);
    expect(reply.body).to.deep.equal({ message: 'Unauthenticated.' });
  });

  it('when there is no internal token, then 401', async () => {
    expect((await get(operator.uuid, { as: null })).status).to.equal(401);
  });

  it('when the token is signed by a key the service does not trust, then 401', async () => {
    const reply = await get(operator.uuid, { as: operatorPrincipal(operator.uuid), forgedToken: true });
    expect(reply.status).to.equal(401);
    expect(reply.body).to.deep.equal({ message: 'Unauthenticated.' });
  });

  it('when the gateway itself (system) asks, then 403', async () => {
    expect((await get(operator.uuid, { as: system })).status).to.equal(403);
  });

  it('then every answer carries the request id it was given', async () => {
    const reply = await get(operator.uuid, { as: admin, headers: { 'X-Request-Id': 'req-get-operator-1' } });
    expect(reply.headers.get('x-request-id')).to.equal('req-get-operator-1');
  });

  it('when another method is used on the path, then 405', async () => {
    const reply = await service.call('PUT', `/api/operators/${operator.uuid}`, { as: admin, body: {} });
    expect(reply.status).to.equal(405);
  });
});
