import { expect } from 'chai';
import { generateApiKey } from '../../src/security/api-key-secrets.js';
import { bootstrapAdminKey, BOOTSTRAP_ADMIN_KEY_NAME } from '../../src/use-cases/bootstrap-admin-key.js';
import { admin, startService, system, type TestService } from '../support/service.js';

describe('bootstrap admin key (ADMIN_API_KEY at start)', () => {
  let service: TestService;

  before(async () => {
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  const verify = (key: string) => service.call('POST', '/internal/api-keys/verify', { as: system, body: { key } });
  const deps = () => service.deps;

  it('when it runs again with the same key, then there is still one record and the key verifies', async () => {
    const id = await bootstrapAdminKey(deps(), service.adminKey);
    await bootstrapAdminKey(deps(), service.adminKey);
    const record = await deps().apiKeys.findById(id);
    expect(record).to.include({ role: 'admin', name: BOOTSTRAP_ADMIN_KEY_NAME, revoked_at: null });
    expect((await verify(service.adminKey)).status).to.equal(200);
  });

  it('when replicas start at once, then the key is created once', async () => {
    const { key } = generateApiKey();
    const ids = await Promise.all(Array.from({ length: 5 }, () => bootstrapAdminKey(deps(), key)));
    expect(new Set(ids).size).to.equal(1);
    expect(await deps().apiKeys.findById(ids[0] ?? '')).to.include({ role: 'admin', revoked_at: null });
    expect((await verify(key)).status).to.equal(200);
  });

  it('when the configured secret changes under the same id, then the new key works and the old one no longer does', async () => {
    const { id, key: old } = generateApiKey();
    await bootstrapAdminKey(deps(), old);
    const changed = `dfc_${id}_${'Z'.repeat(43)}`;
    await bootstrapAdminKey(deps(), changed);
    expect((await verify(changed)).status).to.equal(200);
    expect((await verify(old)).status).to.equal(401);
    expect((await deps().apiKeys.findById(id))?.last_four).to.equal('ZZZZ');
  });

  it('when an admin revoked it, then a restart does not bring it back', async () => {
    const { id, key } = generateApiKey();
    await bootstrapAdminKey(deps(), key);
    expect((await service.call('DELETE', `/api/api-keys/${id}`, { as: admin })).status).to.equal(204);
    await bootstrapAdminKey(deps(), key);
    expect((await verify(key)).status).to.equal(401);
  });

  it('when the key is not well formed, then it refuses to start', async () => {
    let failure: unknown;
    await bootstrapAdminKey(deps(), 'not-a-key').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});
