import { expect } from 'chai';
import { captureEvents, type CapturedEvents } from '@dfc/kit/testing';
import { API_KEY_PATTERN, RoutingKeys } from '@dfc/contracts';
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

describe('/api/api-keys (admins)', () => {
  let service: TestService;
  let events: CapturedEvents;

  before(async () => {
    service = await startService();
    events = await captureEvents(service.amqpUrl, service.exchange, [RoutingKeys.apiKeyRevoked]);
  });

  after(async () => {
    await events?.close();
    await service?.close();
  });

  const issue = (body: unknown, as = admin) => service.call('POST', '/api/api-keys', { as, body });
  const verify = (key: string) => service.call('POST', '/internal/api-keys/verify', { as: system, body: { key } });

  describe('POST /api/api-keys', () => {
    it('when an admin issues a reviewer key for an authority, then 201 and it verifies as that reviewer', async () => {
      const reply = await issue({ role: 'reviewer', authority: 'DFS Deutsche Flugsicherung', name: 'duty desk' });
      expect(reply.status).to.equal(201);
      expect(reply.body.data.key).to.match(API_KEY_PATTERN);
      expect(reply.body.data).to.include({
        role: 'reviewer',
        authority: 'DFS Deutsche Flugsicherung',
        operator_uuid: null,
        name: 'duty desk',
      });
      const verified = await verify(reply.body.data.key);
      expect(verified.body.data).to.deep.equal({
        sub: reply.body.data.id,
        role: 'reviewer',
        authority: 'DFS Deutsche Flugsicherung',
        key_id: reply.body.data.id,
      });
    });

    it('when an admin issues an admin key, then 201 and it verifies as admin', async () => {
      const reply = await issue({ role: 'admin' });
      expect(reply.status).to.equal(201);
      expect(reply.body.data).to.include({ role: 'admin', authority: null, name: null });
      const verified = await verify(reply.body.data.key);
      expect(verified.body.data).to.deep.equal({ sub: reply.body.data.id, role: 'admin', key_id: reply.body.data.id });
    });

    it('when the authority is sent as null, then 422 says it must be a string, for either role', async () => {
      for (const role of ['admin', 'reviewer']) {
        const reply = await issue({ role, authority: null });
        expect(reply.status, role).to.equal(422);
        expect(reply.body.errors.authority, role).to.include('The authority field must be a string.');
      }
    });

    it('when a reviewer key has no authority, then 422 names authority', async () => {
      const reply = await issue({ role: 'reviewer', authority: '  ' });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ authority: ['The authority field is required when role is reviewer.'] });
    });

    it('when the authority is 100 characters and a space, then 422 (its length as sent, as the document says); padded under 100, it is stored trimmed', async () => {
      const long = await issue({ role: 'reviewer', authority: `${'A'.repeat(100)} ` });
      expect(long.status).to.equal(422);
      expect(long.body.errors).to.have.key('authority');
      const padded = await issue({ role: 'reviewer', authority: '  LVNL ' });
      expect(padded.status).to.equal(201);
      expect(padded.body.data.authority).to.equal('LVNL');
    });

    it('when an admin key names an authority, then 422 names authority', async () => {
      const reply = await issue({ role: 'admin', authority: 'LBA' });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ authority: ['The authority field is prohibited when role is admin.'] });
    });

    it('when the name is null, then 201 with no name, as the schema documents', async () => {
      const reply = await issue({ role: 'admin', name: null });
      expect(reply.status).to.equal(201);
      expect(reply.body.data.name).to.equal(null);
    });

    it('when an admin key names a blank authority, then 422 names authority', async () => {
      const reply = await issue({ role: 'admin', authority: '' });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ authority: ['The authority field is prohibited when role is admin.'] });
    });

    it('when the role is missing or not a staff role, then 422 names role', async () => {
      expect((await issue({})).body.errors).to.deep.equal({ role: ['The role field is required.'] });
      expect((await issue({ role: 'operator' })).body.errors).to.deep.equal({ role: ['The selected role is invalid.'] });
    });

    it('when a reviewer or an operator tries, then 403', async () => {
      expect((await issue({ role: 'admin' }, reviewer)).status).to.equal(403);
      expect((await issue({ role: 'admin' }, operatorPrincipal('6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11'))).status).to.equal(403);
    });

    it('when the call is anonymous, then 401', async () => {
      expect((await issue({ role: 'admin' }, anonymous)).status).to.equal(401);
    });

    it('then the issued counter goes up by role', async () => {
      const value = async () =>
        (await service.registry.getSingleMetric('api_keys_issued_total')?.get())?.values.find((entry) => entry.labels['role'] === 'reviewer')
          ?.value ?? 0;
      const before = await value();
      await issue({ role: 'reviewer', authority: 'LBA' });
      expect(await value()).to.equal(before + 1);
    });
  });

  describe('GET /api/api-keys', () => {
    it('when an admin lists, then every key (the bootstrap admin key too), newest first, without secrets', async () => {
      const issued = await issue({ role: 'reviewer', authority: 'Austro Control' });
      const reply = await service.call('GET', '/api/api-keys?per_page=100', { as: admin });
      expect(reply.status).to.equal(200);
      const ids = reply.body.data.map((key: { id: string }) => key.id);
      expect(ids[0]).to.equal(issued.body.data.id);
      expect(ids).to.include(API_KEY_PATTERN.exec(service.adminKey)?.[1]);
      const text = JSON.stringify(reply.body);
      expect(text).not.to.include(issued.body.data.key);
      expect(text).not.to.include(service.adminKey);
      expect(reply.body.meta.total).to.equal(reply.body.data.length);
    });

    it('when filtered by role and authority, then only those keys', async () => {
      await issue({ role: 'reviewer', authority: 'Skyguide' });
      await issue({ role: 'reviewer', authority: 'ENAV' });
      const reply = await service.call('GET', '/api/api-keys?role=reviewer&authority=Skyguide', { as: admin });
      expect(reply.body.data.length).to.be.greaterThan(0);
      for (const key of reply.body.data) expect(key).to.include({ role: 'reviewer', authority: 'Skyguide' });
    });

    it("when filtered by operator_uuid and status, then only that operator's keys in that state", async () => {
      const operator = await registerOperator(service);
      const kept = await issueKey(service, operator);
      const revoked = await issueKey(service, operator);
      await service.call('DELETE', `/api/api-keys/${revoked.id}`, { as: admin });
      const active = await service.call('GET', `/api/api-keys?operator_uuid=${operator.uuid}&status=active`, { as: admin });
      expect(active.body.data.map((key: { id: string }) => key.id)).to.deep.equal([kept.id]);
      const gone = await service.call('GET', `/api/api-keys?operator_uuid=${operator.uuid}&status=revoked`, { as: admin });
      expect(gone.body.data.map((key: { id: string }) => key.id)).to.deep.equal([revoked.id]);
    });

    it('when a filter is malformed, then 422 names it', async () => {
      const reply = await service.call('GET', '/api/api-keys?role=pilot&operator_uuid=nope&page=0', { as: admin });
      expect(reply.status).to.equal(422);
      expect(Object.keys(reply.body.errors).sort()).to.deep.equal(['operator_uuid', 'page', 'role']);
    });

    it('when a reviewer asks, then 403', async () => {
      expect((await service.call('GET', '/api/api-keys', { as: reviewer })).status).to.equal(403);
    });
  });

  describe('DELETE /api/api-keys/{id}', () => {
    it('when an admin revokes a reviewer key, then 204, it stops verifying and api_key.revoked arrives', async () => {
      const issued = (await issue({ role: 'reviewer', authority: 'LBA' })).body.data;
      const reply = await service.call('DELETE', `/api/api-keys/${issued.id}`, { as: admin });
      expect(reply.status).to.equal(204);
      expect((await verify(issued.key)).status).to.equal(401);
      const event = await events.next((candidate) => (candidate.data as { key_id?: string }).key_id === issued.id);
      expect(event).to.include({ type: 'api_key.revoked', operator_uuid: null });
    });

    it("when an admin revokes an operator's key, then it stops verifying", async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      expect((await service.call('DELETE', `/api/api-keys/${issued.id}`, { as: admin })).status).to.equal(204);
      expect((await verify(issued.key)).status).to.equal(401);
    });

    it('when the key does not exist, then 404', async () => {
      expect((await service.call('DELETE', '/api/api-keys/0123456789abcdef', { as: admin })).status).to.equal(404);
    });

    it('when an operator tries to revoke a key through the admin route, then 403', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const reply = await service.call('DELETE', `/api/api-keys/${issued.id}`, { as: operatorPrincipal(operator.uuid) });
      expect(reply.status).to.equal(403);
      expect((await verify(issued.key)).status).to.equal(200);
    });
  });
});
