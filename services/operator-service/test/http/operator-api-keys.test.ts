import { expect } from 'chai';
import { captureEvents, type CapturedEvents } from '@dfc/kit/testing';
import { API_KEY_PATTERN, RoutingKeys } from '@dfc/contracts';
import {
  admin,
  anonymous,
  basic,
  issueKey,
  operatorPrincipal,
  registerOperator,
  reviewer,
  startService,
  system,
  type TestService,
} from '../support/service.js';
import { OWASP_ARGON2, PasswordHasher } from '../../src/security/passwords.js';

const METADATA_FIELDS = ['id', 'name', 'role', 'operator_uuid', 'authority', 'last_four', 'created_at', 'last_used_at', 'revoked_at'];

describe('/api/operators/{uuid}/api-keys', () => {
  let service: TestService;
  let events: CapturedEvents;

  before(async () => {
    service = await startService();
    events = await captureEvents(service.amqpUrl, service.exchange, [
      RoutingKeys.apiKeyRevoked,
      RoutingKeys.operatorCredentialsChanged,
      RoutingKeys.operatorUpdated,
      RoutingKeys.operatorPasswordChanged,
    ]);
  });

  after(async () => {
    await events?.close();
    await service?.close();
  });

  const keysPath = (uuid: string) => `/api/operators/${uuid}/api-keys`;
  const verify = (key: string) => service.call('POST', '/internal/api-keys/verify', { as: system, body: { key } });

  describe('POST /api/operators/{uuid}/api-keys', () => {
    it('when email and password are right (HTTP Basic), then 201 shows the key once with its metadata', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(operator.email, operator.password),
        body: { name: 'ground station' },
      });
      expect(reply.status).to.equal(201);
      const data = reply.body.data;
      expect(data).to.have.all.keys(...METADATA_FIELDS, 'key');
      expect(data.key).to.match(API_KEY_PATTERN);
      expect(data).to.include({
        name: 'ground station',
        role: 'operator',
        operator_uuid: operator.uuid,
        authority: null,
        last_four: data.key.slice(-4),
        last_used_at: null,
        revoked_at: null,
      });
      expect(data.id).to.equal(API_KEY_PATTERN.exec(data.key)?.[1]);
      expect(data.created_at).to.match(/\+00:00$/);
    });

    it('then the issued key verifies as the operator', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const reply = await verify(issued.key);
      expect(reply.status).to.equal(200);
      expect(reply.body.data).to.deep.equal({
        sub: operator.uuid,
        role: 'operator',
        operator_uuid: operator.uuid,
        key_id: issued.id,
      });
    });

    it('when the email is written in another case, then it still logs in', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(operator.email.toUpperCase(), operator.password),
        body: {},
      });
      expect(reply.status).to.equal(201);
      expect(reply.body.data.name).to.equal(null);
    });

    it('when there is no body at all, then 201 with no name', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), { headers: basic(operator.email, operator.password) });
      expect(reply.status).to.equal(201);
      expect(reply.body.data.name).to.equal(null);
    });

    it('when the password is wrong, then 401 "Unauthenticated." with a Basic challenge', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(operator.email, `${operator.password}!`),
        body: {},
      });
      expect(reply.status).to.equal(401);
      expect(reply.body).to.deep.equal({ message: 'Unauthenticated.' });
      expect(reply.headers.get('www-authenticate')).to.equal('Basic realm="dfc"');
    });

    it('when the email is unknown, then the same 401', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(`nobody-${operator.email}`, operator.password),
        body: {},
      });
      expect(reply.status).to.equal(401);
      expect(reply.headers.get('www-authenticate')).to.equal('Basic realm="dfc"');
    });

    it('when no credentials are sent, then 401 with a Basic challenge', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), { body: {} });
      expect(reply.status).to.equal(401);
      expect(reply.headers.get('www-authenticate')).to.equal('Basic realm="dfc"');
    });

    it('when the Basic header cannot be decoded into email:password, then 401', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: { Authorization: `Basic ${Buffer.from('no-colon-here').toString('base64')}` },
        body: {},
      });
      expect(reply.status).to.equal(401);
    });

    it("when only the operator's own API key is sent (no Basic), then 401: issuing needs the password", async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), { as: operatorPrincipal(operator.uuid), body: {} });
      expect(reply.status).to.equal(401);
    });

    it("when the credentials are another operator's, then 404 and no key is issued", async () => {
      const operator = await registerOperator(service);
      const other = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(other.email, other.password),
        body: {},
      });
      expect(reply.status).to.equal(404);
      const listed = await service.call('GET', keysPath(operator.uuid), { as: admin });
      expect(listed.body.meta.total).to.equal(0);
    });

    it('when the name is too long, then 422 names name', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('POST', keysPath(operator.uuid), {
        headers: basic(operator.email, operator.password),
        body: { name: 'n'.repeat(101) },
      });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ name: ['The name field must not be greater than 100 characters.'] });
    });

    it('when the stored password hash has older argon2 parameters, then the login succeeds and the hash moves to the current ones, unseen by the operator', async () => {
      const operator = await registerOperator(service);
      const older = await new PasswordHasher({ memoryCostKib: 19_456, timeCost: 2, parallelism: 1 }).hash(operator.password);
      expect(older).to.include('m=19456');
      const before = await service.deps.operators.change(operator.uuid, () => ({ set: { password_hash: older }, events: [] }));

      await issueKey(service, operator);
      const stored = await service.deps.operators.findByUuid(operator.uuid);
      expect(stored?.password_hash)
        .to.include(`m=${OWASP_ARGON2.memoryCostKib}`)
        .and.include(`t=${OWASP_ARGON2.timeCost}`)
        .and.include(`p=${OWASP_ARGON2.parallelism}`);
      expect(await service.deps.passwords.verify(stored?.password_hash ?? '', operator.password)).to.equal(true);
      expect(stored?.updated_at.getTime()).to.equal(before.updated_at.getTime());
      await issueKey(service, operator);
      expect((await service.deps.operators.findByUuid(operator.uuid))?.password_hash).to.equal(stored?.password_hash);
      // The outbox publishes after the write: time for an event the rehash must not cause to arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(events.events.filter((candidate) => candidate.operator_uuid === operator.uuid)).to.deep.equal([]);
    });

    it('when the password is wrong, then a hash with older parameters stays as it was', async () => {
      const operator = await registerOperator(service);
      const older = await new PasswordHasher({ memoryCostKib: 19_456, timeCost: 2, parallelism: 1 }).hash(operator.password);
      await service.deps.operators.change(operator.uuid, () => ({ set: { password_hash: older }, events: [] }));
      const reply = await service.call('POST', keysPath(operator.uuid), { headers: basic(operator.email, 'not the password'), body: {} });
      expect(reply.status).to.equal(401);
      expect((await service.deps.operators.findByUuid(operator.uuid))?.password_hash).to.equal(older);
    });

    it('then no stored field holds the key: only its SHA-256 digest', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const stored = await service.deps.apiKeys.findById(issued.id);
      // The secret is the pattern's second group: base64url, so it may itself hold an underscore.
      const secret = API_KEY_PATTERN.exec(issued.key)?.[2];
      expect(secret).to.have.length(43);
      expect(JSON.stringify(stored)).not.to.include(issued.key);
      expect(JSON.stringify(stored)).not.to.include(secret);
      expect(stored?.digest).to.match(/^[0-9a-f]{64}$/);
    });
  });

  describe('GET /api/operators/{uuid}/api-keys', () => {
    it('when the operator lists with Basic, then its keys newest first, metadata only', async () => {
      const operator = await registerOperator(service);
      const first = await issueKey(service, operator, 'first');
      const second = await issueKey(service, operator, 'second');
      const reply = await service.call('GET', keysPath(operator.uuid), { headers: basic(operator.email, operator.password) });
      expect(reply.status).to.equal(200);
      expect(reply.body.data.map((key: { id: string }) => key.id)).to.deep.equal([second.id, first.id]);
      for (const key of reply.body.data) expect(key).to.have.all.keys(...METADATA_FIELDS);
      const text = JSON.stringify(reply.body);
      for (const secret of [first.key, second.key]) expect(text).not.to.include(secret);
      expect(text).not.to.include('digest');
      expect(reply.body.meta).to.include({ total: 2, current_page: 1, per_page: 15, from: 1, to: 2, last_page: 1 });
    });

    it('when the operator lists with its own key, then 200', async () => {
      const operator = await registerOperator(service);
      await issueKey(service, operator);
      const reply = await service.call('GET', keysPath(operator.uuid), { as: operatorPrincipal(operator.uuid) });
      expect(reply.status).to.equal(200);
      expect(reply.body.data).to.have.length(1);
    });

    it("when an admin lists an operator's keys, then 200", async () => {
      const operator = await registerOperator(service);
      await issueKey(service, operator);
      expect((await service.call('GET', keysPath(operator.uuid), { as: admin })).body.data).to.have.length(1);
    });

    it("when another operator's key lists them, then 404", async () => {
      const operator = await registerOperator(service);
      const other = await registerOperator(service);
      expect((await service.call('GET', keysPath(operator.uuid), { as: operatorPrincipal(other.uuid) })).status).to.equal(404);
    });

    it("when another operator's Basic credentials are sent, then 404", async () => {
      const operator = await registerOperator(service);
      const other = await registerOperator(service);
      const reply = await service.call('GET', keysPath(operator.uuid), { headers: basic(other.email, other.password) });
      expect(reply.status).to.equal(404);
    });

    it('when a wrong password is sent along with a valid key, then 401 (credentials sent are always checked)', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('GET', keysPath(operator.uuid), {
        as: operatorPrincipal(operator.uuid),
        headers: basic(operator.email, 'wrong password'),
      });
      expect(reply.status).to.equal(401);
    });

    it('when a reviewer asks, then 403', async () => {
      const operator = await registerOperator(service);
      expect((await service.call('GET', keysPath(operator.uuid), { as: reviewer })).status).to.equal(403);
    });

    it('when anonymous without credentials, then 401 with a Basic challenge', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('GET', keysPath(operator.uuid), { as: anonymous });
      expect(reply.status).to.equal(401);
      expect(reply.headers.get('www-authenticate')).to.equal('Basic realm="dfc"');
    });

    it('when an admin names an operator that does not exist, then 404', async () => {
      const reply = await service.call('GET', keysPath('6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11'), { as: admin });
      expect(reply.status).to.equal(404);
    });

    it("when paging and filtering by status, then Laravel's envelope with links that keep the filter", async () => {
      const operator = await registerOperator(service);
      const keys = [];
      for (let index = 0; index < 3; index++) keys.push(await issueKey(service, operator, `k${index}`));
      await service.call('DELETE', `${keysPath(operator.uuid)}/${keys[0]?.id}`, { as: admin });
      const reply = await service.call('GET', `${keysPath(operator.uuid)}?status=active&per_page=1&page=2`, {
        as: admin,
        headers: { 'X-Forwarded-Host': 'api.example.test', 'X-Forwarded-Proto': 'https' },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body.data.map((key: { id: string }) => key.id)).to.deep.equal([keys[1]?.id]);
      expect(reply.body.meta).to.include({ total: 2, current_page: 2, last_page: 2, per_page: 1, from: 2, to: 2 });
      const path = `https://api.example.test${keysPath(operator.uuid)}`;
      expect(reply.body.meta.path).to.equal(path);
      expect(reply.body.links).to.deep.equal({
        first: `${path}?status=active&per_page=1&page=1`,
        last: `${path}?status=active&per_page=1&page=2`,
        prev: `${path}?status=active&per_page=1&page=1`,
        next: null,
      });
    });

    it('when per_page is over 100 or status is unknown, then 422 names them', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('GET', `${keysPath(operator.uuid)}?per_page=101&status=lost`, { as: admin });
      expect(reply.status).to.equal(422);
      expect(Object.keys(reply.body.errors).sort()).to.deep.equal(['per_page', 'status']);
    });
  });

  describe('DELETE /api/operators/{uuid}/api-keys/{id}', () => {
    it('when the operator revokes a key with Basic, then 204, the key stops verifying and api_key.revoked arrives', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      expect((await verify(issued.key)).status).to.equal(200);

      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${issued.id}`, {
        headers: basic(operator.email, operator.password),
      });
      expect(reply.status).to.equal(204);
      expect((await verify(issued.key)).status).to.equal(401);

      const event = await events.next((candidate) => (candidate.data as { key_id?: string }).key_id === issued.id);
      expect(event.type).to.equal('api_key.revoked');
      expect(event.operator_uuid).to.equal(operator.uuid);
      expect(event.data).to.deep.equal({ key_id: issued.id });

      const listed = await service.call('GET', keysPath(operator.uuid), { as: admin });
      expect(listed.body.data[0].revoked_at).to.match(/\+00:00$/);
    });

    it('when a key revokes itself, then 204 and no notice (its holder did it)', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${issued.id}`, {
        as: { ...operatorPrincipal(operator.uuid), key_id: issued.id },
      });
      expect(reply.status).to.equal(204);
      await events.next((candidate) => candidate.type === RoutingKeys.apiKeyRevoked && (candidate.data as { key_id?: string }).key_id === issued.id);
      expect(
        events.events.filter((candidate) => candidate.type === RoutingKeys.operatorCredentialsChanged && candidate.operator_uuid === operator.uuid),
      ).to.have.length(0);
    });

    it('when a key alone revokes a sibling key, then 403 naming HTTP Basic, and the sibling keeps working', async () => {
      const operator = await registerOperator(service);
      const [holder, sibling] = [await issueKey(service, operator), await issueKey(service, operator)];
      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${sibling.id}`, {
        as: { ...operatorPrincipal(operator.uuid), key_id: holder.id },
      });
      expect(reply.status).to.equal(403);
      expect(reply.body.message).to.contain('HTTP Basic');
      expect((await service.call('POST', '/internal/api-keys/verify', { as: system, body: { key: sibling.key } })).status).to.equal(200);
    });

    it('when the sibling is revoked with email and password, then 204 and the owner gets a notice at its email', async () => {
      const operator = await registerOperator(service);
      const sibling = await issueKey(service, operator);
      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${sibling.id}`, { headers: basic(operator.email, operator.password) });
      expect(reply.status).to.equal(204);
      const notice = await events.next(
        (candidate) => candidate.type === RoutingKeys.operatorCredentialsChanged && candidate.operator_uuid === operator.uuid,
      );
      expect(notice.data).to.deep.equal({ uuid: operator.uuid, changes: ['api_key_revoked'], notify_email: operator.email, key_id: sibling.id });
    });

    it('when the key is revoked twice, then 204 both times and only one event', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const path = `${keysPath(operator.uuid)}/${issued.id}`;
      expect((await service.call('DELETE', path, { as: admin })).status).to.equal(204);
      expect((await service.call('DELETE', path, { as: admin })).status).to.equal(204);
      const revokedEvents = () =>
        events.events.filter(
          (candidate) => candidate.type === RoutingKeys.apiKeyRevoked && (candidate.data as { key_id?: string }).key_id === issued.id,
        );
      await events.next((candidate) => candidate.type === RoutingKeys.apiKeyRevoked && (candidate.data as { key_id?: string }).key_id === issued.id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(revokedEvents()).to.have.length(1);
    });

    it('when the key belongs to another operator, then 404 and it keeps working', async () => {
      const operator = await registerOperator(service);
      const other = await registerOperator(service);
      const othersKey = await issueKey(service, other);
      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${othersKey.id}`, {
        headers: basic(operator.email, operator.password),
      });
      expect(reply.status).to.equal(404);
      expect((await verify(othersKey.key)).status).to.equal(200);
    });

    it('when the key id does not exist or is malformed, then 404', async () => {
      const operator = await registerOperator(service);
      const auth = { headers: basic(operator.email, operator.password) };
      expect((await service.call('DELETE', `${keysPath(operator.uuid)}/0123456789abcdef`, auth)).status).to.equal(404);
      expect((await service.call('DELETE', `${keysPath(operator.uuid)}/not-a-key-id`, auth)).status).to.equal(404);
    });

    it('when the password is wrong, then 401 and the key keeps working', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const reply = await service.call('DELETE', `${keysPath(operator.uuid)}/${issued.id}`, {
        headers: basic(operator.email, 'not the password'),
      });
      expect(reply.status).to.equal(401);
      expect((await verify(issued.key)).status).to.equal(200);
    });

    it('then the revoked counter goes up by role', async () => {
      const operator = await registerOperator(service);
      const issued = await issueKey(service, operator);
      const before = await counter('api_keys_revoked_total', { role: 'operator' });
      await service.call('DELETE', `${keysPath(operator.uuid)}/${issued.id}`, { as: admin });
      expect(await counter('api_keys_revoked_total', { role: 'operator' })).to.equal(before + 1);
    });
  });

  async function counter(name: string, labels: Record<string, string>): Promise<number> {
    const metric = await service.registry.getSingleMetric(name)?.get();
    const matching = metric?.values.filter((value) => Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted));
    return matching?.reduce((sum, value) => sum + value.value, 0) ?? 0;
  }
});
