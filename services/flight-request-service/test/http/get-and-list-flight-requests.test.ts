import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, square, submission } from '../support/fixtures.js';

const DAY = 86_400_000;

/** A UTC calendar day `days` from today, as YYYY-MM-DD. */
function dayFromToday(days: number): string {
  return new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
}

describe('GET /api/flight-requests/{uuid}', () => {
  let t: TestService;
  let operatorUuid: string;
  let uuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
    const created = await t.call('POST', '/api/flight-requests', { as: operatorPrincipal(operatorUuid), body: submission(operatorUuid) });
    uuid = created.body.data.uuid;
  });
  after(async () => t.close());

  const get = (query: string, as = operatorPrincipal(operatorUuid)) => t.call('GET', `/api/flight-requests/${uuid}${query}`, { as });

  for (const [value, included] of [
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ] as const) {
    it(`when include_geometry=${value}, then flight_area is ${included ? 'included' : 'left out'} and the summary is always there`, async () => {
      const response = await get(`?include_geometry=${value}`);
      expect(response.status).to.equal(200);
      expect(response.body.data.area.feature_count).to.equal(1);
      if (included) expect(response.body.data.flight_area.type).to.equal('FeatureCollection');
      else expect(response.body.data).not.to.have.property('flight_area');
    });
  }

  it('when include_geometry=yes, then 422 names it', async () => {
    const response = await get('?include_geometry=yes');
    expect(response.status).to.equal(422);
    expect(response.body.errors).to.deep.equal({ include_geometry: ['The include geometry field must be true or false.'] });
  });

  it('when another operator asks, then 404 (no existence leak)', async () => {
    expect((await get('', operatorPrincipal(randomUUID()))).status).to.equal(404);
  });

  it('when an admin asks, then 200', async () => {
    expect((await get('', admin)).status).to.equal(200);
  });

  it('when a reviewer without an item on it asks, then 404', async () => {
    expect((await get('', reviewerPrincipal('NATIONAL'))).status).to.equal(404);
  });

  it('when the uuid is malformed or unknown, then 404', async () => {
    for (const path of ['/api/flight-requests/not-a-uuid', `/api/flight-requests/${randomUUID()}`]) {
      const response = await t.call('GET', path, { as: admin });
      expect(response.status).to.equal(404);
      expect(response.body).to.deep.equal({ message: 'Not Found.' });
    }
  });
});

describe('GET /api/flight-requests', function () {
  // The fixtures are real submissions (23 for the pagination story); a busy shared database needs the time.
  this.timeout(120_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => t.close());

  const list = (query: string, as = admin) => t.call('GET', `/api/flight-requests${query}`, { as });

  async function submitMany(operatorUuid: string, count: number, overrides: Record<string, unknown> = {}): Promise<string[]> {
    const uuids: string[] = [];
    for (let index = 0; index < count; index++) {
      const response = await t.call('POST', '/api/flight-requests', {
        as: operatorPrincipal(operatorUuid),
        body: submission(operatorUuid, { purpose: `flight ${index}`, ...overrides }),
      });
      expect(response.status).to.equal(201);
      uuids.push(response.body.data.uuid);
    }
    return uuids;
  }

  describe('pagination', () => {
    let operatorUuid: string;
    let uuids: string[];

    before(async () => {
      operatorUuid = await t.seedOperator();
      uuids = await submitMany(operatorUuid, 23);
    });

    const mine = (query: string) => list(query, operatorPrincipal(operatorUuid));

    it('when 23 requests are listed 10 per page, then page 1 holds the newest 10 and links to page 2', async () => {
      const response = await mine('?per_page=10');
      expect(response.status).to.equal(200);
      expect(response.body.data.map((record: { uuid: string }) => record.uuid)).to.deep.equal([...uuids].reverse().slice(0, 10));
      expect(response.body.meta).to.include({ current_page: 1, from: 1, to: 10, last_page: 3, per_page: 10, total: 23 });
      expect(response.body.meta.path).to.match(/\/api\/flight-requests$/);
      expect(response.body.links.prev).to.equal(null);
      expect(response.body.links.next).to.match(/[?&]page=2(&|$)/);
      expect(response.body.links.first).to.match(/[?&]page=1(&|$)/);
      expect(response.body.links.last).to.match(/[?&]page=3(&|$)/);
    });

    it('when page 3 is asked, then it holds the oldest 3 (21..23) and has no next', async () => {
      const response = await mine('?per_page=10&page=3');
      expect(response.body.data.map((record: { uuid: string }) => record.uuid)).to.deep.equal([...uuids].reverse().slice(20));
      expect(response.body.meta).to.include({ current_page: 3, from: 21, to: 23, total: 23 });
      expect(response.body.links.next).to.equal(null);
      expect(response.body.links.prev).to.match(/[?&]page=2(&|$)/);
    });

    it('when the page is beyond the last, then data is empty and from/to are null', async () => {
      const response = await mine('?per_page=10&page=4');
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.equal([]);
      expect(response.body.meta).to.include({ current_page: 4, from: null, to: null, last_page: 3, total: 23 });
    });

    it('when per_page is left out, then 15 per page', async () => {
      const response = await mine('');
      expect(response.body.data).to.have.length(15);
      expect(response.body.meta.per_page).to.equal(15);
    });

    it('when per_page is 100, then 200; 101 or 0, then 422; page 0, then 422', async () => {
      expect((await mine('?per_page=100')).body.data).to.have.length(23);
      for (const query of ['?per_page=101', '?per_page=0', '?page=0', '?per_page=ten']) {
        const response = await mine(query);
        expect(response.status, query).to.equal(422);
      }
      expect((await mine('?per_page=101')).body.errors.per_page).to.deep.equal(['The per page field must not be greater than 100.']);
    });

    it('when an operator lists, then it sees only its own requests', async () => {
      const other = await t.seedOperator();
      await submitMany(other, 1);
      const response = await mine('?per_page=100');
      expect(response.body.data.every((record: { operator_uuid: string }) => record.operator_uuid === operatorUuid)).to.equal(true);
      expect(response.body.meta.total).to.equal(23);
    });

    it('when an admin filters by operator_uuid, then only that operator; without, then everyone', async () => {
      expect((await list(`?operator_uuid=${operatorUuid}`)).body.meta.total).to.equal(23);
      expect((await list('')).body.meta.total).to.be.greaterThan(23);
    });
  });

  describe('status filter', () => {
    let operatorUuid: string;
    // An area of its own, so no other test's Approved flight turns these into deconfliction reviews.
    const area = { flight_area: featureCollection(square(10.5, 50.5)) };

    before(async () => {
      operatorUuid = await t.seedOperator();
      await submitMany(operatorUuid, 2, area);
      await submitMany(operatorUuid, 3, { max_altitude: 200, ...area });
    });

    const mine = (query: string) => list(query, operatorPrincipal(operatorUuid));

    it('when status=pending (any case), then only Pending requests', async () => {
      for (const value of ['Pending', 'pending', 'PENDING']) {
        const response = await mine(`?status=${value}`);
        expect(response.body.meta.total, value).to.equal(3);
        expect(response.body.data.every((record: { status: string }) => record.status === 'Pending')).to.equal(true);
      }
    });

    it('when several statuses are comma-separated, then any of them', async () => {
      expect((await mine('?status=approved,Pending')).body.meta.total).to.equal(5);
      expect((await mine('?status=Approved, Rejected')).body.meta.total).to.equal(2);
    });

    it('when a request is cancelled, then the next list files it under Cancelled, no longer under Pending (the list copies follow each write)', async () => {
      const [uuid] = await submitMany(operatorUuid, 1, { max_altitude: 200, ...area });
      expect((await mine('?status=pending')).body.meta.total).to.equal(4);
      const cancelled = await t.call('DELETE', `/api/flight-requests/${uuid}`, { as: operatorPrincipal(operatorUuid), body: { reason: 'Weather' } });
      expect(cancelled.status).to.equal(200);
      const listed = await mine('?status=cancelled');
      expect(listed.body.data.map((record: { uuid: string; status: string }) => [record.uuid, record.status])).to.deep.equal([[uuid, 'Cancelled']]);
      expect((await mine('?status=pending')).body.meta.total).to.equal(3);
    });

    it('when a status is unknown, then 422 listing the statuses', async () => {
      const response = await mine('?status=Pending,Flying');
      expect(response.status).to.equal(422);
      expect(response.body.errors.status).to.deep.equal([
        'The selected status is invalid. Allowed values: Pending, Approved, Rejected, Cancelled, Expired, Rescinded, Suspended, Activated, Ended.',
      ]);
    });

    it('when status comes in another shape (status[], status[$ne], repeated), then 422 and no unfiltered list', async () => {
      for (const query of ['?status[]=Pending', '?status[$ne]=Pending', '?status=Pending&status=Approved']) {
        const response = await mine(query);
        expect(response.status, query).to.equal(422);
        expect(Object.keys(response.body.errors), query).to.have.length(1);
      }
      expect((await mine('?status[$ne]=Pending')).body.errors).to.deep.equal({ 'status[$ne]': ['The status[$ne] field is prohibited.'] });
    });

    it('when a reviewer lists, then it sees requests with an item of its authority only', async () => {
      const national = await list('?per_page=100', reviewerPrincipal('NATIONAL'));
      expect(national.body.data.length).to.be.greaterThan(0);
      expect(
        national.body.data.every((record: { review: { items: Array<{ authority: string }> } }) =>
          record.review.items.some((item) => item.authority === 'NATIONAL'),
        ),
      ).to.equal(true);
      expect((await list('', reviewerPrincipal('LVNL'))).body.meta.total).to.equal(0);
    });
  });

  describe('date filter in the operator’s timezone', () => {
    const day = dayFromToday(10);
    const nextDay = dayFromToday(11);
    const previousDay = dayFromToday(9);
    const dayAfterNext = dayFromToday(12);
    // 12:30–13:00 UTC is the next calendar day in Auckland (UTC+12 or +13) in every season.
    const lateUtc = { start_time: `${day}T12:30:00Z`, end_time: `${day}T13:00:00Z` };
    const overMidnight = { start_time: `${day}T23:00:00Z`, end_time: `${nextDay}T01:00:00Z` };

    let auckland: string;
    let utc: string;

    before(async () => {
      auckland = await t.seedOperator({ timezone: 'Pacific/Auckland' });
      utc = await t.seedOperator({ timezone: null });
      await submitMany(auckland, 1, lateUtc);
      await submitMany(utc, 1, lateUtc);
      await submitMany(utc, 1, overMidnight);
    });

    const count = async (operatorUuid: string, query: string) => {
      const response = await list(query, operatorPrincipal(operatorUuid));
      expect(response.status, query).to.equal(200);
      return response.body.meta.total as number;
    };

    it('when an Auckland operator filters by its local day, then the UTC afternoon falls on the next day', async () => {
      expect(await count(auckland, `?from_date=${nextDay}&to_date=${nextDay}`)).to.equal(1);
      expect(await count(auckland, `?from_date=${day}&to_date=${day}`)).to.equal(0);
    });

    it('when an operator without a timezone filters, then days are UTC days', async () => {
      expect(await count(utc, `?from_date=${day}&to_date=${day}`)).to.equal(2);
      expect(await count(utc, `?from_date=${previousDay}&to_date=${previousDay}`)).to.equal(0);
    });

    it('when a window crosses midnight, then it overlaps both days and not the days around them', async () => {
      expect(await count(utc, `?from_date=${nextDay}&to_date=${nextDay}`)).to.equal(1);
      expect(await count(utc, `?from_date=${dayAfterNext}`)).to.equal(0);
      expect(await count(utc, `?to_date=${previousDay}`)).to.equal(0);
      expect(await count(utc, `?from_date=${nextDay}`)).to.equal(1);
    });

    it('when to_date is before from_date or a date is not real, then 422', async () => {
      const reversed = await list(`?from_date=${nextDay}&to_date=${day}`, operatorPrincipal(utc));
      expect(reversed.status).to.equal(422);
      expect(reversed.body.errors.to_date).to.deep.equal(['The to date field must be a date after or equal to from date.']);
      const unreal = await list('?from_date=2027-02-30', operatorPrincipal(utc));
      expect(unreal.status).to.equal(422);
      expect(unreal.body.errors.from_date).to.deep.equal(['The from date field must match the format Y-m-d.']);
    });
  });
});
