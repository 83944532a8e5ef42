import { expect } from 'chai';
import { unrecorded } from '@dfc/kit/testing';
import { randomUUID } from 'node:crypto';
import { RoutingKeys } from '@dfc/contracts';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, isoZ, submission } from '../support/fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('POST /api/flight-requests', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator({ timezone: 'Europe/Amsterdam' });
  });
  after(async () => t.close());

  const submit = (body: Record<string, unknown>, as = operatorPrincipal(operatorUuid), headers: Record<string, string> = {}) =>
    t.call('POST', '/api/flight-requests', { as, body, headers });

  /** A submission whose window starts `offsetMs` from now and lasts `durationMs`. */
  const windowed = (offsetMs: number, durationMs = HOUR, extra: Record<string, unknown> = {}) => {
    const start = new Date(Date.now() + offsetMs);
    return submission(operatorUuid, { start_time: isoZ(start), end_time: isoZ(new Date(start.getTime() + durationMs)), ...extra });
  };

  describe('the spec example', () => {
    it('when every field is valid and no zone is touched, then 201 with the record, a Location and an Approved history', async () => {
      const events = await t.captureEvents();
      try {
        const body = submission(operatorUuid);
        const response = await submit(body);
        expect(response.status).to.equal(201);
        const record = response.body.data;
        expect(response.headers.get('location')).to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/flight-requests/${record.uuid}$`));
        expect(record).to.include({
          operator_uuid: operatorUuid,
          status: 'Approved',
          operator_name: 'Jan de Vries',
          operator_email: 'jan@example.com',
          operator_phone: '+31 20 123 4567',
          operator_company: 'Skyview Drones B.V.',
          operational_authorisation_number: 'NLD-OAT-2026-0042',
          start_time: body['start_time'],
          end_time: body['end_time'],
          max_altitude: 100,
          aircraft_type: 'multirotor',
          purpose: 'Roof inspection of a warehouse',
          cancellation: null,
        });
        expect(record.start_time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(record.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
        expect(record.area.feature_count).to.equal(1);
        expect(record.area.bbox).to.have.length(4);
        expect(record.area.area_m2).to.be.greaterThan(700_000).and.lessThan(900_000);
        expect(record).not.to.have.property('flight_area');
        expect(record.review).to.deep.equal({ findings: [], items: [], complete: true });
        expect(record.status_history.map((entry: { status: string; actor: string }) => [entry.status, entry.actor])).to.deep.equal([
          ['Pending', 'operator'],
          ['Approved', 'screening'],
        ]);

        const changes = await waitForCount(
          events.events,
          (event) => event.type === RoutingKeys.flightRequestStatusChanged && hasUuid(event, record.uuid),
          2,
        );
        const change = (event: { data: unknown }) => event.data as { previous_status: string | null; status: string; sequence: number };
        expect(changes.map((event) => [change(event).previous_status, change(event).status, change(event).sequence])).to.deep.equal([
          [null, 'Pending', 1],
          ['Pending', 'Approved', 2],
        ]);
        const submitted = await events.next((event) => event.type === RoutingKeys.flightRequestSubmitted && hasUuid(event, record.uuid));
        expect(submitted.operator_uuid).to.equal(operatorUuid);
      } finally {
        await events.close();
      }
    });
  });

  describe('time rules', () => {
    it('when end_time is before start_time, then 422 names end_time', async () => {
      const response = await submit(windowed(HOUR, -MINUTE));
      expect(response.status).to.equal(422);
      expect(response.body.errors.end_time).to.deep.equal(['The end time field must be a date after start time.']);
    });

    it('when the start is 6 minutes in the past, then 422 names start_time', async () => {
      const response = await submit(windowed(-6 * MINUTE));
      expect(response.status).to.equal(422);
      expect(response.body.errors.start_time).to.deep.equal(['The start time field must not be more than 5 minutes in the past.']);
    });

    it('when the start is 4 minutes in the past, then 201', async () => {
      expect((await submit(windowed(-4 * MINUTE))).status).to.equal(201);
    });

    it('when the start is just under 90 days ahead, then 201; just over, then 422', async () => {
      expect((await submit(windowed(90 * DAY - MINUTE))).status).to.equal(201);
      const late = await submit(windowed(90 * DAY + MINUTE));
      expect(late.status).to.equal(422);
      expect(late.body.errors.start_time).to.deep.equal(['The start time field must not be more than 90 days in the future.']);
    });

    it('when the window lasts exactly 24 hours, then 201; a second longer, then 422', async () => {
      expect((await submit(windowed(HOUR, 24 * HOUR))).status).to.equal(201);
      const long = await submit(windowed(HOUR, 24 * HOUR + 1000));
      expect(long.status).to.equal(422);
      expect(long.body.errors.end_time).to.deep.equal(['The flight window must not be longer than 24 hours.']);
    });

    it('when start_time is null, then 422 "is required"', async () => {
      const response = await submit(submission(operatorUuid, { start_time: null }));
      expect(response.status).to.equal(422);
      expect(response.body.errors.start_time).to.deep.equal(['The start time field is required.']);
    });

    it('when a time lacks the Z form, then 422 explains the format', async () => {
      const response = await submit(submission(operatorUuid, { start_time: '2026-12-01T10:00:00+01:00' }));
      expect(response.status).to.equal(422);
      expect(response.body.errors.start_time[0]).to.contain('RFC 3339 UTC timestamp ending in Z');
    });

    it('when a time has the form but names no real instant, then 422 "must be a valid date" (the schema says so too)', async () => {
      for (const end of ['2027-02-30T10:00:00Z', '2027-02-29T10:00:00Z', '0000-00-00T00:00:00Z', '2027-03-01T24:00:00Z']) {
        const response = await submit(submission(operatorUuid, { end_time: end }));
        expect(response.status, end).to.equal(422);
        expect(response.body.errors.end_time, end).to.deep.equal([
          'The end time field must be a valid date: an RFC 3339 UTC timestamp ending in Z, e.g. 2026-12-01T10:00:00Z.',
        ]);
      }
    });
  });

  describe('max_altitude', () => {
    for (const [value, ok] of [
      [0, false],
      [1, true],
      [500, true],
      [501, false],
    ] as const) {
      it(`when it is ${value}, then ${ok ? '201' : '422 naming the bounds'}`, async () => {
        const response = await submit(submission(operatorUuid, { max_altitude: value }));
        expect(response.status).to.equal(ok ? 201 : 422);
        if (!ok) expect(response.body.errors.max_altitude).to.deep.equal(['The max altitude field must be between 1 and 500.']);
      });
    }

    it('when it is 1.5, then 422 "must be an integer"', async () => {
      const response = await submit(submission(operatorUuid, { max_altitude: 1.5 }));
      expect(response.status).to.equal(422);
      expect(response.body.errors.max_altitude).to.deep.equal(['The max altitude field must be an integer.']);
    });
  });

  describe('aircraft_type', () => {
    for (const [sent, category] of [
      ['Quadcopter', 'multirotor'],
      ['DJI Matrice 300', 'multirotor'],
      ['fixed_wing', 'fixed_wing'],
      ['Wingtra tail-sitter VTOL', 'vtol'],
      ['Robinson R44 helicopter', 'helicopter'],
      ['Kite', 'other'],
    ] as const) {
      it(`when it is "${sent}", then 201, stored as sent, category ${category}`, async () => {
        const response = await submit(submission(operatorUuid, { aircraft_type: sent }));
        expect(response.status).to.equal(201);
        expect(response.body.data.aircraft_type).to.equal(sent);
        expect(response.body.data.aircraft_category).to.equal(category);
      });
    }

    it('when it is blank or over 100 characters, then 422 names it', async () => {
      for (const [value, message] of [
        ['   ', 'The aircraft type field is required.'],
        ['x'.repeat(101), 'The aircraft type field must not be greater than 100 characters.'],
      ]) {
        const response = await submit(submission(operatorUuid, { aircraft_type: value }));
        expect(response.status).to.equal(422);
        expect(response.body.errors.aircraft_type).to.deep.equal([message]);
      }
    });
  });

  describe('purpose', () => {
    it('when it is only spaces, then 422 "is required"', async () => {
      const response = await submit(submission(operatorUuid, { purpose: '   ' }));
      expect(response.status).to.equal(422);
      expect(response.body.errors.purpose).to.deep.equal(['The purpose field is required.']);
    });

    for (const [length, status] of [
      [0, 422],
      [1, 201],
      [1000, 201],
      [1001, 422],
    ] as const) {
      it(`when it has ${length} characters, then ${status}`, async () => {
        const response = await submit(submission(operatorUuid, { purpose: 'p'.repeat(length) }));
        expect(response.status).to.equal(status);
        if (status === 422) expect(response.body.errors).to.have.keys('purpose');
      });
    }
  });

  describe('operator fields and all errors at once', () => {
    it('when the operator fields are missing, then 422 names each of them', async () => {
      const body = submission(operatorUuid);
      delete body['operator_name'];
      delete body['operator_email'];
      delete body['operator_phone'];
      const response = await submit(body);
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.deep.equal({
        operator_name: ['The operator name field is required.'],
        operator_email: ['The operator email field is required.'],
        operator_phone: ['The operator phone field is required.'],
      });
    });

    it('when many fields fail, including the flight area, then one 422 names every one and nothing is stored', async () => {
      const before = await unrecorded(() => t.service.deps.requests.model.countDocuments());
      const openRing = [
        [
          [4.89, 52.37],
          [4.9, 52.37],
          [4.9, 52.38],
          [4.89, 52.38],
        ],
      ];
      const response = await submit(
        submission(operatorUuid, {
          operator_email: 'not-an-email',
          operator_phone: 'x'.repeat(51),
          max_altitude: 900,
          aircraft_type: ' ',
          flight_area: featureCollection(openRing),
        }),
      );
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.include.keys('operator_email', 'operator_phone', 'max_altitude', 'aircraft_type');
      const areaFields = Object.keys(response.body.errors).filter((field) => field.startsWith('flight_area.features.0.geometry.coordinates'));
      expect(areaFields).to.have.length.greaterThan(0);
      expect(response.body.message).to.match(/\(and \d+ more errors\)$/);
      expect(await unrecorded(() => t.service.deps.requests.model.countDocuments())).to.equal(before);
    });

    it('when flight_area is missing, then 422 names it', async () => {
      const body = submission(operatorUuid);
      delete body['flight_area'];
      const response = await submit(body);
      expect(response.status).to.equal(422);
      expect(response.body.errors.flight_area).to.deep.equal(['The flight area field is required.']);
    });
  });

  describe('who may name which operator', () => {
    it('when an operator key names another operator, then 403 with a message', async () => {
      const other = await t.seedOperator();
      const response = await submit(submission(other));
      expect(response.status).to.equal(403);
      expect(response.body.message).to.equal('You may only submit flight requests for your own operator.');
    });

    it('when an admin names any known operator, then 201 and the history names the admin', async () => {
      const other = await t.seedOperator();
      const response = await submit(submission(other), admin);
      expect(response.status).to.equal(201);
      expect(response.body.data.operator_uuid).to.equal(other);
      expect(response.body.data.status_history[0].actor).to.equal('admin');
    });

    it('when a reviewer submits, then 403', async () => {
      expect((await submit(submission(operatorUuid), reviewerPrincipal('NATIONAL'))).status).to.equal(403);
    });

    it('when the operator is unknown, then 422 on operator_uuid', async () => {
      const response = await submit(submission(randomUUID()), admin);
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.deep.equal({ operator_uuid: ['The selected operator uuid is invalid.'] });
    });

    it('when there is no internal token, then 401', async () => {
      const response = await t.call('POST', '/api/flight-requests', { body: submission(operatorUuid) });
      expect(response.status).to.equal(401);
    });
  });

  describe('Idempotency-Key', () => {
    it('when a retry carries the same key and body, then 201 with the same record and one stored request', async () => {
      const key = `retry-${randomUUID()}`;
      const body = submission(operatorUuid);
      const first = await submit(body, undefined, { 'Idempotency-Key': key });
      const second = await submit(body, undefined, { 'Idempotency-Key': key });
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.body.data).to.deep.equal(first.body.data);
      expect(await unrecorded(() => t.service.deps.requests.model.countDocuments({ _id: first.body.data.uuid }))).to.equal(1);
    });

    it('when retries with one key race, then all answer with the one stored request', async () => {
      const key = `race-${randomUUID()}`;
      const body = submission(operatorUuid);
      const answers = await Promise.all([1, 2, 3, 4].map(() => submit(body, undefined, { 'Idempotency-Key': key })));
      expect(answers.map((answer) => answer.status)).to.deep.equal([201, 201, 201, 201]);
      expect(new Set(answers.map((answer) => answer.body.data.uuid)).size).to.equal(1);
      expect(await unrecorded(() => t.service.deps.requests.model.countDocuments({ 'idempotency.key': key }))).to.equal(1);
    });

    it('when the key comes again with another body, then 409 and nothing new is stored', async () => {
      const key = `other-${randomUUID()}`;
      await submit(submission(operatorUuid), undefined, { 'Idempotency-Key': key });
      const response = await submit(submission(operatorUuid, { purpose: 'Something else' }), undefined, { 'Idempotency-Key': key });
      expect(response.status).to.equal(409);
      expect(response.body.message).to.equal('The Idempotency-Key was already used with a different request body.');
      expect(await unrecorded(() => t.service.deps.requests.model.countDocuments({ 'idempotency.key': key }))).to.equal(1);
    });

    it('when the key was first used more than 24 hours ago, then 409 saying it expired', async () => {
      const key = `old-${randomUUID()}`;
      const body = submission(operatorUuid);
      const first = await submit(body, undefined, { 'Idempotency-Key': key });
      await unrecorded(() =>
        t.service.deps.idempotencyKeys.model.updateOne(
          { request_uuid: first.body.data.uuid },
          { $set: { created_at: new Date(Date.now() - 25 * HOUR) } },
        ),
      );
      const response = await submit(body, undefined, { 'Idempotency-Key': key });
      expect(response.status).to.equal(409);
      expect(response.body.message).to.contain('expired');
    });

    it('when two operators use one guessable key, then each request gets a random uuid that nobody could derive from the key', async () => {
      const otherOperator = await t.seedOperator();
      const first = await submit(submission(operatorUuid), undefined, { 'Idempotency-Key': 'order-42' });
      const second = await submit(submission(otherOperator), operatorPrincipal(otherOperator), { 'Idempotency-Key': 'order-42' });
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      for (const uuid of [first.body.data.uuid, second.body.data.uuid])
        expect(uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(first.body.data.uuid).to.not.equal(second.body.data.uuid);
    });

    it('when the retry sends the same body with its keys in another order and its numbers written otherwise, then it is a replay', async () => {
      const key = `canonical-${randomUUID()}`;
      const body = submission(operatorUuid);
      const first = await submit(body, undefined, { 'Idempotency-Key': key });
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const text = JSON.stringify(reordered).replace(
        `"max_altitude":${String(body.max_altitude)}`,
        `"max_altitude":${String(body.max_altitude)}.0e0`,
      );
      expect(text).to.contain('.0e0');
      const second = await t.call('POST', '/api/flight-requests', {
        as: operatorPrincipal(operatorUuid),
        body: text,
        headers: { 'Idempotency-Key': key },
      });
      expect(second.status).to.equal(201);
      expect(second.body.data.uuid).to.equal(first.body.data.uuid);
    });

    it('when the key is longer than 255 characters, then 422', async () => {
      const response = await submit(submission(operatorUuid), undefined, { 'Idempotency-Key': 'k'.repeat(256) });
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.keys('Idempotency-Key');
    });

    it('when two operators use the same key, then each gets its own request', async () => {
      const other = await t.seedOperator();
      const key = `shared-${randomUUID()}`;
      const mine = await submit(submission(operatorUuid), undefined, { 'Idempotency-Key': key });
      const theirs = await submit(submission(other), operatorPrincipal(other), { 'Idempotency-Key': key });
      expect(theirs.status).to.equal(201);
      expect(theirs.body.data.uuid).not.to.equal(mine.body.data.uuid);
    });
  });

  it('when the polygon is wound clockwise, then it is stored counter-clockwise (right-hand rule)', async () => {
    const clockwise = [
      [
        [4.89, 52.37],
        [4.89, 52.38],
        [4.9, 52.38],
        [4.9, 52.37],
        [4.89, 52.37],
      ],
    ];
    const created = await submit(submission(operatorUuid, { flight_area: featureCollection(clockwise) }));
    expect(created.status).to.equal(201);
    const fetched = await t.call('GET', `/api/flight-requests/${created.body.data.uuid}?include_geometry=true`, {
      as: operatorPrincipal(operatorUuid),
    });
    expect(fetched.body.data.flight_area.features[0].geometry.coordinates[0]).to.deep.equal([
      [4.89, 52.37],
      [4.9, 52.37],
      [4.9, 52.38],
      [4.89, 52.38],
      [4.89, 52.37],
    ]);
  });
});

function hasUuid(event: { data: unknown }, uuid: string): boolean {
  return (event.data as { flight_request_uuid?: string }).flight_request_uuid === uuid;
}

async function waitForCount<T>(list: T[], predicate: (item: T) => boolean, count: number): Promise<T[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = list.filter(predicate);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
