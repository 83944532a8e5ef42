import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startSystem, type System } from '../src/system.js';

/**
 * The operator slice end to end, through the gateway as a client sees it:
 * registration, key issuance with HTTP Basic, reads with the key, revocation,
 * and every documented error status on these routes.
 */
describe('operators through the gateway', function () {
  this.timeout(120_000);
  let system: System;

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'gateway'],
      env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' },
    });
  });
  after(() => system?.stop());

  const api = (path: string, init: RequestInit = {}) => fetch(`${system.gatewayUrl}${path}`, init);
  const jsonPost = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    api(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

  function operatorBody(overrides: Record<string, unknown> = {}) {
    return {
      company_name: 'SkyView Aerial Ltd',
      email: `ops-${randomBytes(4).toString('hex')}@skyview.example`,
      password: 'correct-horse-battery',
      phone: '+44 20 7946 0958',
      operational_authorisation_number: 'GBR-OAT-2024-0042',
      operator_registration_number: 'GBR-RP-123456789',
      exemption_for_ctr: true,
      ctr_exemption_number: 'CTR-EX-7781',
      timezone: 'Europe/London',
      ...overrides,
    };
  }

  async function registerWithKey(): Promise<{ uuid: string; email: string; password: string; key: string; keyId: string }> {
    const body = operatorBody();
    const registered = await jsonPost('/api/operators', body);
    expect(registered.status).to.equal(201);
    const { data } = (await registered.json()) as { data: { uuid: string } };
    const issued = await jsonPost(`/api/operators/${data.uuid}/api-keys`, { name: 'ci' }, { authorization: basic(body.email, body.password) });
    expect(issued.status).to.equal(201);
    const key = (await issued.json()) as { data: { key: string; id: string } };
    return { uuid: data.uuid, email: body.email, password: body.password, key: key.data.key, keyId: key.data.id };
  }

  describe('POST /api/operators', () => {
    it("when the spec's fields are sent, then 201 with the operator record and never the password", async () => {
      const body = operatorBody();
      const response = await jsonPost('/api/operators', body);
      expect(response.status).to.equal(201);
      expect(response.headers.get('x-request-id')).to.be.a('string');
      const { data } = (await response.json()) as { data: Record<string, unknown> };
      expect(Object.keys(data).sort()).to.deep.equal(
        [
          'uuid',
          'company_name',
          'email',
          'phone',
          'operational_authorisation_number',
          'operator_registration_number',
          'exemption_for_ctr',
          'ctr_exemption_number',
          'timezone',
          'created_at',
          'updated_at',
        ].sort(),
      );
      expect(data['uuid']).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const { password: _password, ...shown } = body;
      expect(data).to.include(shown);
      expect(data['created_at']).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
      expect(JSON.stringify(data)).to.not.include(body.password);
    });

    it('when every required field is missing, then 422 names all of them at once', async () => {
      const response = await jsonPost('/api/operators', {});
      expect(response.status).to.equal(422);
      const body = (await response.json()) as { message: string; errors: Record<string, string[]> };
      expect(body.message).to.be.a('string');
      expect(body.errors).to.include.keys('company_name', 'email', 'password', 'phone');
      for (const messages of Object.values(body.errors)) expect(messages).to.be.an('array').that.has.length.above(0);
    });

    it('when the email is already registered, then 422 names email', async () => {
      const body = operatorBody();
      expect((await jsonPost('/api/operators', body)).status).to.equal(201);
      const again = await jsonPost('/api/operators', { ...body, email: body.email.toUpperCase() });
      expect(again.status).to.equal(422);
      expect(((await again.json()) as { errors: object }).errors).to.have.property('email');
    });

    it('when the JSON is malformed, then 400 with a message', async () => {
      const response = await api('/api/operators', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"company_name":' });
      expect(response.status).to.equal(400);
      expect(await response.json())
        .to.have.property('message')
        .that.is.a('string');
    });

    it('when the body is not JSON, then 415', async () => {
      const response = await api('/api/operators', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
      expect(response.status).to.equal(415);
      expect(await response.json()).to.have.property('message');
    });

    it('when the body is over 1 MiB, then 413', async () => {
      const response = await jsonPost('/api/operators', operatorBody({ company_name: 'x'.repeat(1024 * 1024 + 1) }));
      expect(response.status).to.equal(413);
      expect(await response.json()).to.have.property('message');
    });
  });

  describe('POST /api/operators/{uuid}/api-keys (HTTP Basic)', () => {
    it("when the operator's email and password are right, then 201 with the key shown once", async () => {
      const body = operatorBody();
      const { data } = (await (await jsonPost('/api/operators', body)).json()) as { data: { uuid: string } };
      const response = await jsonPost(`/api/v1/operators/${data.uuid}/api-keys`, {}, { authorization: basic(body.email, body.password) });
      expect(response.status).to.equal(201);
      const issued = (await response.json()) as { data: { key: string; role: string; last_four: string; operator_uuid: string } };
      expect(issued.data.key).to.match(/^dfc_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(issued.data.role).to.equal('operator');
      expect(issued.data.operator_uuid).to.equal(data.uuid);
      expect(issued.data.key.endsWith(issued.data.last_four)).to.equal(true);
    });

    it('when the password is wrong, then 401', async () => {
      const body = operatorBody();
      const { data } = (await (await jsonPost('/api/operators', body)).json()) as { data: { uuid: string } };
      const response = await jsonPost(`/api/operators/${data.uuid}/api-keys`, {}, { authorization: basic(body.email, 'wrong-password') });
      expect(response.status).to.equal(401);
      expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
    });
  });

  describe('GET /api/operators/{uuid}', () => {
    it('when the operator reads its own record with its key, then 200, the same under /api and /api/v1', async () => {
      const operator = await registerWithKey();
      const plain = await api(`/api/operators/${operator.uuid}`, { headers: { 'X-API-Key': operator.key } });
      const versioned = await api(`/api/v1/operators/${operator.uuid}`, { headers: { 'X-API-Key': operator.key } });
      expect(plain.status).to.equal(200);
      expect(versioned.status).to.equal(200);
      const [a, b] = [await plain.json(), await versioned.json()];
      expect(a).to.deep.equal(b);
      expect(a).to.have.nested.property('data.uuid', operator.uuid);
    });

    it('when an operator reads another operator, then 404 (no existence leak)', async () => {
      const [me, other] = [await registerWithKey(), await registerWithKey()];
      const response = await api(`/api/operators/${other.uuid}`, { headers: { 'X-API-Key': me.key } });
      expect(response.status).to.equal(404);
      expect(await response.json()).to.have.property('message');
    });

    it('when an admin reads an operator that does not exist, then 404', async () => {
      const response = await api('/api/operators/00000000-0000-4000-8000-000000000000', { headers: { 'X-API-Key': system.adminKey } });
      expect(response.status).to.equal(404);
    });

    it('when the key is missing, malformed or unknown, then 401 Unauthenticated.', async () => {
      const operator = await registerWithKey();
      const unknown = `dfc_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
      const attempts: Array<Record<string, string>> = [{}, { 'X-API-Key': 'not-a-key' }, { 'X-API-Key': unknown }];
      for (const headers of attempts) {
        const response = await api(`/api/operators/${operator.uuid}`, { headers });
        expect(response.status, JSON.stringify(headers)).to.equal(401);
        expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
      }
    });

    it('when the route exists but not the method, then 405', async () => {
      const operator = await registerWithKey();
      const response = await api(`/api/operators/${operator.uuid}`, {
        method: 'PUT',
        headers: { 'X-API-Key': operator.key, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).to.equal(405);
      expect(await response.json()).to.have.property('message');
    });
  });

  describe('POST /api/api-keys (admin only)', () => {
    it('when an operator key asks for a staff key, then 403', async () => {
      const operator = await registerWithKey();
      const response = await jsonPost('/api/api-keys', { role: 'reviewer', authority: 'CAA-UK' }, { 'X-API-Key': operator.key });
      expect(response.status).to.equal(403);
      expect(await response.json()).to.have.property('message');
    });

    it('when the admin key asks for a reviewer key, then 201 and the new key works', async () => {
      const response = await jsonPost('/api/api-keys', { role: 'reviewer', authority: 'CAA-UK' }, { 'X-API-Key': system.adminKey });
      expect(response.status).to.equal(201);
      const { data } = (await response.json()) as { data: { key: string } };
      const operator = await registerWithKey();
      expect((await api(`/api/operators/${operator.uuid}`, { headers: { 'X-API-Key': data.key } })).status).to.equal(200);
    });
  });

  describe('PATCH /api/operators/{uuid}', () => {
    const patch = (uuid: string, key: string, body: unknown, login: Record<string, string> = {}) =>
      api(`/api/operators/${uuid}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'X-API-Key': key, ...login },
        body: JSON.stringify(body),
      });

    it('when the operator changes its password with its email and password, then the new one logs in and its key keeps working', async () => {
      const operator = await registerWithKey();
      const newPassword = 'a-new-password-for-ci';
      const changed = await patch(
        operator.uuid,
        operator.key,
        { password: newPassword, current_password: operator.password },
        { authorization: basic(operator.email, operator.password) },
      );
      expect(changed.status).to.equal(200);
      const issue = (password: string) =>
        jsonPost(`/api/operators/${operator.uuid}/api-keys`, {}, { authorization: basic(operator.email, password) });
      expect((await issue(newPassword)).status).to.equal(201);
      expect((await issue(operator.password)).status).to.equal(401);
      expect((await api(`/api/operators/${operator.uuid}`, { headers: { 'X-API-Key': operator.key } })).status).to.equal(200);
    });

    it('when the current password is wrong or a read-only field is sent, then 422 names the field', async () => {
      const operator = await registerWithKey();
      const wrong = await patch(
        operator.uuid,
        operator.key,
        { password: 'a-new-password-for-ci', current_password: 'wrong-password' },
        { authorization: basic(operator.email, operator.password) },
      );
      expect(wrong.status).to.equal(422);
      expect(((await wrong.json()) as { errors: Record<string, string[]> }).errors).to.deep.equal({
        current_password: ['The password is incorrect.'],
      });
      const readOnly = await patch(operator.uuid, operator.key, { uuid: operator.uuid, created_at: '2020-01-01T00:00:00+00:00' });
      expect(readOnly.status).to.equal(422);
      expect(Object.keys(((await readOnly.json()) as { errors: Record<string, string[]> }).errors)).to.deep.equal(['uuid', 'created_at']);
    });
  });

  describe('DELETE /api/operators/{uuid}/api-keys/{id}', () => {
    it('when a key in use is revoked, then the gateway refuses it within 2 s', async () => {
      const operator = await registerWithKey();
      const read = () => api(`/api/operators/${operator.uuid}`, { headers: { 'X-API-Key': operator.key } });
      expect((await read()).status).to.equal(200); // now cached at the gateway
      const revoked = await api(`/api/operators/${operator.uuid}/api-keys/${operator.keyId}`, {
        method: 'DELETE',
        headers: { authorization: basic(operator.email, operator.password) },
      });
      expect(revoked.status).to.equal(204);
      const since = Date.now();
      let status = 200;
      while (Date.now() - since < 2_000) {
        status = (await read()).status;
        if (status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).to.equal(401);
      expect(Date.now() - since).to.be.below(2_000);
    });
  });
});
