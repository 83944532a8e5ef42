import { Writable } from 'node:stream';
import { expect } from 'chai';
import { bodyReservation, DEFAULT_BODY_LIMIT_BYTES, processBodyBudget, RAW_BYTES_PER_BODY_BYTE } from '@dfc/kit/http';
import { captureEvents, halfSentBody, waitFor, type CapturedEvents, type HalfSentBody } from '@dfc/kit/testing';
import { INTERNAL_TOKEN_HEADER, RoutingKeys } from '@dfc/contracts';
import { admin, anonymous, operatorPrincipal, registration, startService, type TestService } from '../support/service.js';

const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

describe('POST /api/operators', () => {
  let service: TestService;
  let events: CapturedEvents;
  const logLines: string[] = [];

  before(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    service = await startService({ logStream });
    events = await captureEvents(service.amqpUrl, service.exchange, ['operator.*']);
  });

  after(async () => {
    await events?.close();
    await service?.close();
  });

  const register = (body: unknown) => service.call('POST', '/api/operators', { body });

  describe('when the body is valid', () => {
    it('then 201 returns the record with a Location header, without the password', async () => {
      const body = registration();
      const reply = await register(body);

      expect(reply.status).to.equal(201);
      const record = reply.body.data;
      expect(record).to.have.all.keys(
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
      );
      expect(record.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(record).to.include({
        company_name: body['company_name'],
        email: body['email'],
        phone: body['phone'],
        operational_authorisation_number: 'DEU-OAT-0001',
        operator_registration_number: 'DEU87ast4g7c2b1f',
        exemption_for_ctr: false,
        ctr_exemption_number: null,
        timezone: 'Europe/Berlin',
      });
      expect(reply.headers.get('location')).to.equal(`${service.url}/api/v1/operators/${record.uuid}`);
      expect(JSON.stringify(reply.body)).not.to.include(String(body['password']));
    });

    it('when the gateway forwards its host and scheme, then Location points at the gateway', async () => {
      const reply = await service.call('POST', '/api/operators', {
        body: registration(),
        headers: { 'X-Forwarded-Host': 'api.example.test', 'X-Forwarded-Proto': 'https' },
      });
      expect(reply.headers.get('location')).to.equal(`https://api.example.test/api/v1/operators/${reply.body.data.uuid}`);
    });

    it('then timestamps are ISO 8601 with the numeric offset +00:00', async () => {
      const reply = await register(registration());
      expect(reply.body.data.created_at).to.match(OFFSET_TIMESTAMP);
      expect(reply.body.data.updated_at).to.equal(reply.body.data.created_at);
    });

    it('when only the required fields are sent, then optional fields are null and exemption_for_ctr is false', async () => {
      const { company_name, email, password, phone } = registration();
      const reply = await register({ company_name, email, password, phone });
      expect(reply.status).to.equal(201);
      expect(reply.body.data).to.include({
        operational_authorisation_number: null,
        operator_registration_number: null,
        exemption_for_ctr: false,
        ctr_exemption_number: null,
        timezone: null,
      });
    });

    it('when an unknown field is sent, then 422 names each one and nothing is registered', async () => {
      const sent = registration({ is_admin: true, uuid: '00000000-0000-4000-8000-000000000000' });
      const reply = await register(sent);
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        is_admin: ['The is admin field is not a field of an operator.'],
        uuid: ['The uuid field is not a field of an operator.'],
      });
      const { is_admin: _admin, uuid: _uuid, ...known } = sent;
      expect((await register(known)).status, 'the same email is still free').to.equal(201);
    });

    it('when the email has surrounding spaces, then it is stored trimmed', async () => {
      const email = String(registration()['email']);
      const reply = await register(registration({ email: `  ${email}  ` }));
      expect(reply.status).to.equal(201);
      expect(reply.body.data.email).to.equal(email);
    });

    it('when a principal with a key registers, then it works as well (the route is public)', async () => {
      const reply = await service.call('POST', '/api/operators', { as: admin, body: registration() });
      expect(reply.status).to.equal(201);
    });

    it('then operator.registered arrives on the broker with the operator facts', async () => {
      const reply = await register(registration({ exemption_for_ctr: true, ctr_exemption_number: 'CTR-7', timezone: 'UTC' }));
      const uuid = reply.body.data.uuid;
      const event = await events.next((candidate) => candidate.type === RoutingKeys.operatorRegistered && candidate.operator_uuid === uuid);
      expect(event.id).to.be.a('string');
      expect(event.request_id).to.equal(reply.headers.get('x-request-id'));
      expect(event.data).to.deep.equal({
        uuid,
        company_name: reply.body.data.company_name,
        email: reply.body.data.email,
        timezone: 'UTC',
        exemption_for_ctr: true,
        ctr_exemption_number: 'CTR-7',
        operator_registration_number: reply.body.data.operator_registration_number,
      });
    });

    it('then the password is nowhere in the logs', async () => {
      const password = 'a secret never to be logged 42';
      const reply = await register(registration({ password }));
      expect(reply.status).to.equal(201);
      expect(logLines.some((line) => line.includes('"path":"/api/operators"'))).to.equal(true);
      expect(logLines.join('')).not.to.include(password);
    });

    it('then the operator counter goes up', async () => {
      const before = await counterValue('operator_registrations_total');
      await register(registration());
      expect(await counterValue('operator_registrations_total')).to.equal(before + 1);
    });
  });

  describe('when fields are missing or too long', () => {
    it('when the body is empty, then 422 names every required field', async () => {
      const reply = await register({});
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        company_name: ['The company name field is required.'],
        email: ['The email field is required.'],
        password: ['The password field is required.'],
        phone: ['The phone field is required.'],
      });
      expect(reply.body.message).to.equal('The company name field is required. (and 3 more errors)');
    });

    it('when required fields are empty strings or null, then 422 says they are required', async () => {
      const reply = await register(registration({ company_name: '   ', phone: null }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        company_name: ['The company name field is required.'],
        phone: ['The phone field is required.'],
      });
    });

    it('when company_name has 255 characters, then 201', async () => {
      expect((await register(registration({ company_name: 'c'.repeat(255) }))).status).to.equal(201);
    });

    it('when company_name has 256 characters, then 422 names company_name', async () => {
      const reply = await register(registration({ company_name: 'c'.repeat(256) }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        company_name: ['The company name field must not be greater than 255 characters.'],
      });
    });

    it('when phone has 50 characters, then 201', async () => {
      expect((await register(registration({ phone: '1'.repeat(50) }))).status).to.equal(201);
    });

    it('when phone has 51 characters, then 422 names phone', async () => {
      const reply = await register(registration({ phone: '1'.repeat(51) }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ phone: ['The phone field must not be greater than 50 characters.'] });
    });

    it('when the password has 7 characters, then 422 names password', async () => {
      const reply = await register(registration({ password: 'x'.repeat(7) }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ password: ['The password field must be at least 8 characters.'] });
    });

    it('when the password has 8 characters, then 201', async () => {
      expect((await register(registration({ password: 'x'.repeat(8) }))).status).to.equal(201);
    });

    it('when the password has 256 characters, then 201', async () => {
      expect((await register(registration({ password: 'x'.repeat(256) }))).status).to.equal(201);
    });

    it('when the password has 257 characters, then 422 names password', async () => {
      const reply = await register(registration({ password: 'x'.repeat(257) }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({ password: ['The password field must not be greater than 256 characters.'] });
    });

    it('when a password of 8 characters is padded with spaces, then the spaces count (passwords are not trimmed)', async () => {
      expect((await register(registration({ password: '  abcd  ' }))).status).to.equal(201);
    });
  });

  describe('when fields are malformed', () => {
    for (const email of ['not-an-email', 'pilot@', '@example.com', 'pilot@example', 'two@@example.com']) {
      it(`when the email is "${email}", then 422 names email`, async () => {
        const reply = await register(registration({ email }));
        expect(reply.status).to.equal(422);
        expect(reply.body.errors).to.deep.equal({ email: ['The email field must be a valid email address.'] });
      });
    }

    it('when fields have the wrong types, then 422 names each of them', async () => {
      const reply = await register(registration({ company_name: 42, exemption_for_ctr: 'yes', timezone: 5 }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        company_name: ['The company name field must be a string.'],
        exemption_for_ctr: ['The exemption for ctr field must be true or false.'],
        timezone: ['The timezone field must be a string.'],
      });
    });

    for (const timezone of ['Mars/Olympus_Mons', 'Europe/Nowhere', 'EST', '+01:00', 'europe/berlin', 'utc', 'Berlin']) {
      it(`when the timezone is "${timezone}", then 422 names timezone`, async () => {
        const reply = await register(registration({ timezone }));
        expect(reply.status).to.equal(422);
        expect(reply.body.errors).to.deep.equal({ timezone: ['The timezone field must be a valid timezone.'] });
      });
    }

    for (const timezone of ['UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'Asia/Kolkata', 'Europe/Kyiv']) {
      it(`when the timezone is "${timezone}", then 201 keeps it`, async () => {
        const reply = await register(registration({ timezone }));
        expect(reply.status).to.equal(201);
        expect(reply.body.data.timezone).to.equal(timezone);
      });
    }

    it('when exemption_for_ctr is true without ctr_exemption_number, then 422 names ctr_exemption_number', async () => {
      const reply = await register(registration({ exemption_for_ctr: true }));
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        ctr_exemption_number: ['The ctr exemption number field is required when exemption for ctr is true.'],
      });
    });

    it('when exemption_for_ctr is true with a blank ctr_exemption_number, then 422 names ctr_exemption_number', async () => {
      const reply = await register(registration({ exemption_for_ctr: true, ctr_exemption_number: '  ' }));
      expect(reply.status).to.equal(422);
      expect(Object.keys(reply.body.errors)).to.deep.equal(['ctr_exemption_number']);
    });

    it('when exemption_for_ctr is true with a ctr_exemption_number, then 201 keeps both', async () => {
      const reply = await register(registration({ exemption_for_ctr: true, ctr_exemption_number: 'CTR-EX-12' }));
      expect(reply.status).to.equal(201);
      expect(reply.body.data).to.include({ exemption_for_ctr: true, ctr_exemption_number: 'CTR-EX-12' });
    });

    it('when several fields fail at once, then one 422 lists them all, the taken email included', async () => {
      const existing = registration();
      await register(existing);
      const reply = await register({
        company_name: 'c'.repeat(256),
        email: String(existing['email']).toUpperCase(),
        password: 'short',
        phone: '1'.repeat(51),
        exemption_for_ctr: true,
        timezone: 'Nowhere/Special',
      });
      expect(reply.status).to.equal(422);
      expect(reply.body.errors).to.deep.equal({
        company_name: ['The company name field must not be greater than 255 characters.'],
        email: ['The email has already been taken.'],
        password: ['The password field must be at least 8 characters.'],
        phone: ['The phone field must not be greater than 50 characters.'],
        timezone: ['The timezone field must be a valid timezone.'],
        ctr_exemption_number: ['The ctr exemption number field is required when exemption for ctr is true.'],
      });
      expect(reply.body.message).to.equal('The company name field must not be greater than 255 characters. (and 5 more errors)');
    });

    it('when the body is invalid, then nothing is stored', async () => {
      const email = String(registration()['email']);
      await register(registration({ email, phone: '1'.repeat(51) }));
      expect(await service.deps.operators.emailTaken(email.toLowerCase())).to.equal(false);
    });

    it('when the body is not JSON, then 400 and the process keeps serving', async () => {
      const reply = await service.call('POST', '/api/operators', { body: '{"company_name": ' });
      expect(reply.status).to.equal(400);
      expect(reply.body).to.deep.equal({ message: 'Malformed JSON body.' });
      expect((await register(registration())).status).to.equal(201);
    });
  });

  describe('when the email is already registered', () => {
    it('when the same email is sent in other case and with spaces, then 422 "The email has already been taken."', async () => {
      const first = registration();
      expect((await register(first)).status).to.equal(201);
      const reply = await register(registration({ email: `  ${String(first['email']).toUpperCase()} ` }));
      expect(reply.status).to.equal(422);
      expect(reply.body).to.deep.equal({
        message: 'The email has already been taken.',
        errors: { email: ['The email has already been taken.'] },
      });
    });

    it('when ten registrations of one email in different casing race, then exactly one gets 201 and one operator.registered', async () => {
      const email = String(registration()['email']);
      const variants = Array.from({ length: 10 }, (_, index) =>
        index % 2 === 0 ? email.toUpperCase() : email.replace(/^./, (first) => first.toUpperCase()),
      );
      const replies = await Promise.all(variants.map((variant) => register(registration({ email: variant }))));
      const statuses = replies.map((reply) => reply.status).sort();
      expect(statuses).to.deep.equal([201, ...Array(9).fill(422)]);
      for (const reply of replies.filter((candidate) => candidate.status === 422)) {
        expect(reply.body.errors).to.deep.equal({ email: ['The email has already been taken.'] });
      }
      const winner = replies.find((reply) => reply.status === 201)?.body.data.uuid;
      await events.next((candidate) => candidate.type === RoutingKeys.operatorRegistered && candidate.operator_uuid === winner);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const registered = events.events.filter(
        (event) => event.type === RoutingKeys.operatorRegistered && (event.data as { email?: string }).email?.toLowerCase() === email.toLowerCase(),
      );
      expect(registered.map((event) => event.operator_uuid)).to.deep.equal([winner]);
    });

    it('when the unique index alone must decide (no pre-check), then the duplicate is still 422 on email', async () => {
      const first = registration();
      expect((await register(first)).status).to.equal(201);
      const operators = service.deps.operators;
      const original = operators.emailTaken.bind(operators);
      operators.emailTaken = () => Promise.resolve(false);
      try {
        const reply = await register(registration({ email: String(first['email']).toUpperCase() }));
        expect(reply.status).to.equal(422);
        expect(reply.body.errors).to.deep.equal({ email: ['The email has already been taken.'] });
      } finally {
        operators.emailTaken = original;
      }
    });
  });

  describe('when the caller has no internal token', () => {
    it('then 401 and nothing is stored', async () => {
      const body = registration();
      const reply = await service.call('POST', '/api/operators', { as: null, body });
      expect(reply.status).to.equal(401);
      expect(reply.body).to.deep.equal({ message: 'Unauthenticated.' });
      expect(await service.deps.operators.emailTaken(String(body['email']).toLowerCase())).to.equal(false);
    });

    it('when the token is signed by another key, then 401', async () => {
      const reply = await service.call('POST', '/api/operators', { as: operatorPrincipal('x'), forgedToken: true, body: registration() });
      expect(reply.status).to.equal(401);
    });
  });

  describe('when the body is larger than a registration may be, or the process is reading too many bodies', () => {
    /** A registration that declares `declaredBytes` of body and sends only its first bytes. */
    async function openRegistration(declaredBytes: number): Promise<HalfSentBody> {
      const token = await service.token(anonymous);
      return halfSentBody(service.url, { path: '/api/operators', headers: { [INTERNAL_TOKEN_HEADER]: token }, declaredBytes });
    }

    it('when more than 1 MiB is declared, then 413 in the error shape at once, before a byte of the body is read', async () => {
      const opened = await openRegistration(DEFAULT_BODY_LIMIT_BYTES + 1);
      try {
        const answer = await opened.answer();
        expect(answer.status).to.equal(413);
        expect(answer.body).to.deep.equal({ message: 'Request body is too large.' });
      } finally {
        opened.socket.destroy();
      }
    });

    it('when a registration does not fit beside a body in flight, then 503 with Retry-After and nothing is stored; once that body is done, 201', async () => {
      const budget = processBodyBudget();
      const body = registration();
      const text = JSON.stringify(body);
      const needed = bodyReservation(text);
      const inFlight = await openRegistration(512 * 1024);
      let rest: (() => void) | undefined;
      try {
        await waitFor(() => budget.inUseBytes >= RAW_BYTES_PER_BODY_BYTE * 512 * 1024, 2_000);
        // Other bodies being read hold the rest: the registration's room is what the one in flight holds and a byte less than it needs.
        rest = budget.tryReserve(budget.capacityBytes - budget.inUseBytes - needed + 1);
        expect(rest).to.be.a('function');
        const refused = await register(text);
        expect(refused.status).to.equal(503);
        expect(refused.headers.get('retry-after')).to.equal('1');
        expect(refused.body).to.deep.equal({ message: 'Too many request bodies are being read; try again shortly.' });
        expect(await service.deps.operators.emailTaken(String(body['email']).toLowerCase())).to.equal(false);

        inFlight.socket.destroy();
        await waitFor(async () => (await register(text)).status === 201, 5_000);
      } finally {
        inFlight.socket.destroy();
        rest?.();
      }
      expect(await service.deps.operators.emailTaken(String(body['email']).toLowerCase())).to.equal(true);
      expect((await fetch(`${service.url}/healthz`)).status).to.equal(200);
    });
  });

  async function counterValue(name: string): Promise<number> {
    const metric = await service.registry.getSingleMetric(name)?.get();
    return metric?.values.reduce((sum, value) => sum + value.value, 0) ?? 0;
  }
});
