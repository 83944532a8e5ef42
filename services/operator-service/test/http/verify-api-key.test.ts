import { expect } from 'chai';
import {
  admin,
  anonymous,
  issueKey,
  operatorPrincipal,
  registerOperator,
  reviewer,
  startService,
  system,
  type TestService,
} from '../support/service.js';

describe('POST /internal/api-keys/verify', () => {
  let service: TestService;

  before(async () => {
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  const verify = (body: unknown, as = system) => service.call('POST', '/internal/api-keys/verify', { as, body });

  it('when the bootstrap admin key (ADMIN_API_KEY) is presented, then 200 with an admin principal', async () => {
    const reply = await verify({ key: service.adminKey });
    expect(reply.status).to.equal(200);
    const id = service.adminKey.slice(4, 20);
    expect(reply.body.data).to.deep.equal({ sub: id, role: 'admin', key_id: id });
  });

  it('when the key is malformed, then 401', async () => {
    for (const key of ['', 'dfc_short', `dfc_${'g'.repeat(16)}_${'a'.repeat(43)}`, 'x'.repeat(200)]) {
      const reply = await verify({ key });
      expect(reply.status, key).to.equal(401);
      expect(reply.body).to.deep.equal({ message: 'Unauthenticated.' });
    }
  });

  it('when the key has a known id but a wrong secret, then 401', async () => {
    const forged = `${service.adminKey.slice(0, 21)}${'A'.repeat(43)}`;
    expect((await verify({ key: forged })).status).to.equal(401);
  });

  it('when the key is well formed but unknown, then 401', async () => {
    expect((await verify({ key: `dfc_0123456789abcdef_${'b'.repeat(43)}` })).status).to.equal(401);
  });

  it('when the body has no key, then 422', async () => {
    const reply = await verify({});
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({ key: ['The key field is required.'] });
  });

  for (const [name, principal] of [
    ['an operator', operatorPrincipal('6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11')],
    ['a reviewer', reviewer],
    ['an admin', admin],
    ['anonymous', anonymous],
  ] as const) {
    it(`when ${name} calls it, then 403`, async () => {
      const reply = await verify({ key: service.adminKey }, principal);
      expect(reply.status).to.equal(403);
    });
  }

  it('when a key is used, then last_used_at is recorded (and listed), at most once a minute', async () => {
    const operator = await registerOperator(service);
    const issued = await issueKey(service, operator);
    const lastUsed = async () => (await service.call('GET', `/api/operators/${operator.uuid}/api-keys`, { as: admin })).body.data[0].last_used_at;
    expect(await lastUsed()).to.equal(null);

    expect((await verify({ key: issued.key })).status).to.equal(200);
    let first: string | null = null;
    for (let attempt = 0; attempt < 40 && first === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      first = await lastUsed();
    }
    expect(first).to.match(/\+00:00$/);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await verify({ key: issued.key })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lastUsed()).to.equal(first);
  });

  it('then verifications are counted by outcome', async () => {
    const count = async (outcome: string) =>
      (await service.registry.getSingleMetric('api_key_verifications_total')?.get())?.values.find((entry) => entry.labels['outcome'] === outcome)
        ?.value ?? 0;
    const [valid, malformed] = [await count('valid'), await count('malformed')];
    await verify({ key: service.adminKey });
    await verify({ key: 'nonsense' });
    expect(await count('valid')).to.equal(valid + 1);
    expect(await count('malformed')).to.equal(malformed + 1);
  });
});
