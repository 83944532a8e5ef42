import { expect } from 'chai';
import { captureEvents, type CapturedEvents } from '@dfc/kit/testing';
import { RoutingKeys } from '@dfc/contracts';
import {
  admin,
  anonymous,
  basic,
  issueKey,
  operatorPrincipal,
  registerOperator,
  registration,
  reviewer,
  startService,
  system,
  type TestService,
} from '../support/service.js';

describe('PATCH /api/operators/{uuid}', () => {
  let service: TestService;
  let events: CapturedEvents;

  before(async () => {
    service = await startService();
    events = await captureEvents(service.amqpUrl, service.exchange, [
      RoutingKeys.operatorUpdated,
      RoutingKeys.operatorPasswordChanged,
      RoutingKeys.operatorCredentialsChanged,
    ]);
  });

  after(async () => {
    await events?.close();
    await service?.close();
  });

  const patch = (uuid: string, body: unknown, as = operatorPrincipal(uuid)) => service.call('PATCH', `/api/operators/${uuid}`, { as, body });
  /** A change of the login email or password: the operator's key and its email and password. */
  const patchWithLogin = (operator: { uuid: string; email: string; password: string }, body: unknown) =>
    service.call('PATCH', `/api/operators/${operator.uuid}`, {
      as: operatorPrincipal(operator.uuid),
      body,
      headers: basic(operator.email, operator.password),
    });

  it('when the operator changes contact fields, then 200 with the changed record and a later updated_at', async () => {
    const operator = await registerOperator(service);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const reply = await patch(operator.uuid, { company_name: 'Renamed GmbH', phone: '+49 89 7654321', timezone: 'UTC' });
    expect(reply.status).to.equal(200);
    expect(reply.body.data).to.include({
      uuid: operator.uuid,
      company_name: 'Renamed GmbH',
      phone: '+49 89 7654321',
      timezone: 'UTC',
      email: operator.email,
      created_at: operator.record.created_at,
    });
    expect(reply.body.data.updated_at > operator.record.updated_at).to.equal(true);
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    expect(read.body.data).to.deep.equal(reply.body.data);
  });

  it('then operator.updated arrives on the broker with the new facts', async () => {
    const operator = await registerOperator(service);
    await patch(operator.uuid, { exemption_for_ctr: true, ctr_exemption_number: 'CTR-42' });
    const event = await events.next((candidate) => candidate.operator_uuid === operator.uuid);
    expect(event.type).to.equal('operator.updated');
    expect(event.data).to.include({ uuid: operator.uuid, exemption_for_ctr: true, ctr_exemption_number: 'CTR-42' });
  });

  it('when nothing changes, then 200 with the record as it was and no event', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { company_name: operator.record.company_name });
    expect(reply.status).to.equal(200);
    expect(reply.body.data).to.deep.equal(operator.record);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events.events.some((event) => event.operator_uuid === operator.uuid)).to.equal(false);
  });

  it('when an admin changes an operator, then 200', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { phone: '123' }, admin);
    expect(reply.status).to.equal(200);
    expect(reply.body.data.phone).to.equal('123');
  });

  it('when a field breaks a rule, then 422 names it and nothing changes', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { company_name: 'c'.repeat(256), phone: '1'.repeat(51), email: 'nope', timezone: 'Nowhere/X' });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({
      company_name: ['The company name field must not be greater than 255 characters.'],
      phone: ['The phone field must not be greater than 50 characters.'],
      email: ['The email field must be a valid email address.'],
      timezone: ['The timezone field must be a valid timezone.'],
    });
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    expect(read.body.data).to.deep.equal(operator.record);
  });

  it('when the patch names no field (no body, or {}), then 422 on body and nothing changes, as for webhook endpoints', async () => {
    const operator = await registerOperator(service);
    for (const body of [undefined, {}]) {
      const reply = await patch(operator.uuid, body);
      expect(reply.status, JSON.stringify(body)).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ body: ['The body must name at least one field to change.'] });
    }
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    expect(read.body.data).to.deep.equal(operator.record);
  });

  it('when the only field sent is refused by name, then 422 names that field alone', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { company_name: null });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({ company_name: ['The company name field is required.'] });
  });

  it('when a required field is set to null or blank, then 422 says it is required', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { company_name: null, phone: ' ' });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({
      company_name: ['The company name field is required.'],
      phone: ['The phone field is required.'],
    });
  });

  it('when optional fields are set to null, then they are cleared', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { timezone: null, operational_authorisation_number: '' });
    expect(reply.status).to.equal(200);
    expect(reply.body.data).to.include({ timezone: null, operational_authorisation_number: null });
  });

  it('when exemption_for_ctr becomes true and the record has no ctr_exemption_number, then 422 on ctr_exemption_number', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, { exemption_for_ctr: true });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({
      ctr_exemption_number: ['The ctr exemption number field is required when exemption for ctr is true.'],
    });
  });

  it('when the record is exempt and the PATCH clears ctr_exemption_number, then 422 (the rule applies to the result)', async () => {
    const operator = await registerOperator(service, { exemption_for_ctr: true, ctr_exemption_number: 'CTR-1' });
    const reply = await patch(operator.uuid, { ctr_exemption_number: null });
    expect(reply.status).to.equal(422);
    expect(Object.keys(reply.body.errors)).to.deep.equal(['ctr_exemption_number']);
  });

  it('when the record already has a ctr_exemption_number, then exemption_for_ctr alone can be switched on', async () => {
    const operator = await registerOperator(service, { exemption_for_ctr: false, ctr_exemption_number: 'CTR-2' });
    const reply = await patch(operator.uuid, { exemption_for_ctr: true });
    expect(reply.status).to.equal(200);
    expect(reply.body.data).to.include({ exemption_for_ctr: true, ctr_exemption_number: 'CTR-2' });
  });

  it('when the email is taken by another operator in any case, then 422 "The email has already been taken."', async () => {
    const first = await registerOperator(service);
    const second = await registerOperator(service);
    const reply = await patch(second.uuid, { email: ` ${first.email.toUpperCase()} ` });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({ email: ['The email has already been taken.'] });
  });

  it('when the operator changes only the case of its own email, then 200 and it logs in with the new one', async () => {
    const operator = await registerOperator(service);
    const reply = await patchWithLogin(operator, { email: operator.email.toUpperCase() });
    expect(reply.status).to.equal(200);
    expect(reply.body.data.email).to.equal(operator.email.toUpperCase());
    const issued = await service.call('POST', `/api/operators/${operator.uuid}/api-keys`, {
      headers: basic(operator.email.toUpperCase(), operator.password),
      body: {},
    });
    expect(issued.status).to.equal(201);
  });

  it('when the email changes, then the old one is free for a new registration', async () => {
    const operator = await registerOperator(service);
    expect((await patchWithLogin(operator, { email: `moved-${operator.email}` })).status).to.equal(200);
    const reply = await service.call('POST', '/api/operators', { body: registration({ email: operator.email }) });
    expect(reply.status).to.equal(201);
  });

  describe('a leaked key alone', () => {
    it('when it changes the login email or the password, then 403 naming HTTP Basic, and nothing changes', async () => {
      const operator = await registerOperator(service);
      for (const body of [{ email: `thief-${operator.email}` }, { password: 'the thief password', current_password: operator.password }]) {
        const reply = await patch(operator.uuid, body);
        expect(reply.status, JSON.stringify(body)).to.equal(403);
        expect(reply.body.message).to.contain('HTTP Basic');
      }
      const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
      expect(read.body.data.email).to.equal(operator.email);
    });

    it('when wrong email and password come with it, then 401 with a Basic challenge', async () => {
      const operator = await registerOperator(service);
      const reply = await service.call('PATCH', `/api/operators/${operator.uuid}`, {
        as: operatorPrincipal(operator.uuid),
        body: { email: `thief-${operator.email}` },
        headers: basic(operator.email, 'a guessed password'),
      });
      expect(reply.status).to.equal(401);
      expect(reply.headers.get('www-authenticate')).to.equal('Basic realm="dfc"');
    });

    it('when the owner changes its email with email and password, then 200 and a notice goes to the email it had', async () => {
      const operator = await registerOperator(service);
      const moved = `moved-${operator.email}`;
      expect((await patchWithLogin(operator, { email: moved })).status).to.equal(200);
      const notice = await events.next(
        (candidate) => candidate.type === RoutingKeys.operatorCredentialsChanged && candidate.operator_uuid === operator.uuid,
      );
      expect(notice.data).to.deep.equal({ uuid: operator.uuid, changes: ['email'], notify_email: operator.email, key_id: null });
    });

    it('when contact fields other than the email change, then the key alone is enough', async () => {
      const operator = await registerOperator(service);
      expect((await patch(operator.uuid, { phone: '+49 3', email: operator.email })).status).to.equal(200);
    });
  });

  describe('password change', () => {
    const newPassword = 'a brand new password';
    const issueWith = (operator: { uuid: string; email: string }, password: string) =>
      service.call('POST', `/api/operators/${operator.uuid}/api-keys`, { headers: basic(operator.email, password), body: {} });
    const verify = (key: string) => service.call('POST', '/internal/api-keys/verify', { as: system, body: { key } });

    it('when the current password comes with it, then 200, the new password logs in, the old one no longer does', async () => {
      const operator = await registerOperator(service);
      const reply = await patchWithLogin(operator, { password: newPassword, current_password: operator.password });
      expect(reply.status).to.equal(200);
      expect(reply.body.data).to.not.have.any.keys('password', 'password_hash', 'current_password');
      expect((await issueWith(operator, newPassword)).status).to.equal(201);
      expect((await issueWith(operator, operator.password)).status).to.equal(401);
    });

    it('then every API key issued before stays valid', async () => {
      const operator = await registerOperator(service);
      const keys = [await issueKey(service, operator), await issueKey(service, operator)];
      expect((await patchWithLogin(operator, { password: newPassword, current_password: operator.password })).status).to.equal(200);
      for (const { key } of keys) expect((await verify(key)).status).to.equal(200);
    });

    it('then operator.password_changed arrives on the broker with nothing secret in it', async () => {
      const operator = await registerOperator(service);
      await patchWithLogin(operator, { password: newPassword, current_password: operator.password });
      const event = await events.next(
        (candidate) => candidate.type === RoutingKeys.operatorPasswordChanged && candidate.operator_uuid === operator.uuid,
      );
      expect(event.data).to.deep.equal({ uuid: operator.uuid });
      expect(JSON.stringify(event)).to.not.include(newPassword).and.not.include(operator.password);
    });

    it('when contact fields change with it, then operator.updated is emitted too, from the same change', async () => {
      const operator = await registerOperator(service);
      const reply = await patchWithLogin(operator, { phone: '+49 1', password: newPassword, current_password: operator.password });
      expect(reply.status).to.equal(200);
      const updated = await events.next((candidate) => candidate.type === RoutingKeys.operatorUpdated && candidate.operator_uuid === operator.uuid);
      expect(updated.data).to.include({ uuid: operator.uuid });
      await events.next((candidate) => candidate.type === RoutingKeys.operatorPasswordChanged && candidate.operator_uuid === operator.uuid);
    });

    it('when the current password is wrong, then 422 on current_password and the old password still works', async () => {
      const operator = await registerOperator(service);
      const reply = await patchWithLogin(operator, { password: newPassword, current_password: 'not the password' });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ current_password: ['The password is incorrect.'] });
      expect((await issueWith(operator, operator.password)).status).to.equal(201);
    });

    it('when the current password is missing, then 422 says it is required', async () => {
      const operator = await registerOperator(service);
      const reply = await patch(operator.uuid, { password: newPassword });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ current_password: ['The current password field is required when password is present.'] });
    });

    it('when the new password breaks the registration rules, then 422 on password and nothing changes', async () => {
      const operator = await registerOperator(service);
      const reply = await patch(operator.uuid, { password: 'short', current_password: operator.password, phone: '+49 2' });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ password: ['The password field must be at least 8 characters.'] });
      const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
      expect(read.body.data.phone).to.equal(operator.record.phone);
    });

    it('when current_password comes without a new password, then 422 instead of ignoring it', async () => {
      const operator = await registerOperator(service);
      const reply = await patch(operator.uuid, { current_password: operator.password });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ current_password: ['The current password field is prohibited unless password is present.'] });
    });
  });

  it('when read-only or unknown fields are sent, then 422 names each of them and nothing changes', async () => {
    const operator = await registerOperator(service);
    const reply = await patch(operator.uuid, {
      uuid: '6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11',
      created_at: '2020-01-01T00:00:00+00:00',
      updated_at: '2020-01-01T00:00:00+00:00',
      nickname: 'Ace',
      phone: '+49 3',
    });
    expect(reply.status).to.equal(422);
    expect(reply.body.errors).to.deep.equal({
      uuid: ['The uuid field cannot be changed.'],
      created_at: ['The created at field cannot be changed.'],
      updated_at: ['The updated at field cannot be changed.'],
      nickname: ['The nickname field is not a field of an operator.'],
    });
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    expect(read.body.data).to.deep.equal(operator.record);
  });

  it('when two PATCHes race, then they apply one after the other and the second is judged on the result of the first', async () => {
    const operator = await registerOperator(service, { exemption_for_ctr: false, ctr_exemption_number: 'CTR-3' });
    const replies = await Promise.all([patch(operator.uuid, { exemption_for_ctr: true }), patch(operator.uuid, { ctr_exemption_number: null })]);
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    // Whatever the order, the stored record never holds an exemption without its number.
    expect(read.body.data.exemption_for_ctr && read.body.data.ctr_exemption_number === null).to.equal(false);
    expect(replies.map((reply) => reply.status).sort()).to.deep.equal([200, 422]);
  });

  it("when another operator's key is used, then 404 and nothing changes", async () => {
    const operator = await registerOperator(service);
    const other = await registerOperator(service);
    const reply = await patch(operator.uuid, { company_name: 'Hijacked' }, operatorPrincipal(other.uuid));
    expect(reply.status).to.equal(404);
    const read = await service.call('GET', `/api/operators/${operator.uuid}`, { as: admin });
    expect(read.body.data.company_name).to.equal(operator.record.company_name);
  });

  it('when a reviewer tries, then 403', async () => {
    const operator = await registerOperator(service);
    expect((await patch(operator.uuid, { phone: '1' }, reviewer)).status).to.equal(403);
  });

  it('when the call is anonymous, then 401', async () => {
    const operator = await registerOperator(service);
    expect((await patch(operator.uuid, { phone: '1' }, anonymous)).status).to.equal(401);
  });

  it('when no operator has the uuid, then 404', async () => {
    expect((await patch('6f1c2b9e-0c1d-4d8e-9a55-3c2b1f0e7a11', { phone: '1' }, admin)).status).to.equal(404);
  });
});
