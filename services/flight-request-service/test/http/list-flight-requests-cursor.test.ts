import { expect } from 'chai';
import { operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { insertStored, storedRequest } from '../support/stored-request.js';

const HOUR = 3_600_000;

describe('GET /api/flight-requests: cursor walks and bounded pages', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
  });
  after(() => t.close());

  const mine = (query: string) => t.call('GET', `/api/flight-requests${query}`, { as: operatorPrincipal(operatorUuid) });

  /** A Pending request created `hoursAgo` hours ago (several share a time: the cursor breaks ties by uuid). */
  async function storeCreated(hoursAgo: number): Promise<{ uuid: string; created: number }> {
    const start = new Date(Date.now() + 24 * HOUR);
    const request = storedRequest({ operatorUuid, status: 'Pending', start, end: new Date(start.getTime() + HOUR) });
    const created = new Date(Math.floor(Date.now() / HOUR) * HOUR - hoursAgo * HOUR);
    await insertStored(t, { ...request, created_at: created, updated_at: created });
    return { uuid: request._id, created: created.getTime() };
  }

  it('when a cursor walk runs while new requests arrive, then every request stored before it is listed once, newest first', async () => {
    const before: Array<{ uuid: string; created: number }> = [];
    for (const hoursAgo of [5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 1, 1]) before.push(await storeCreated(hoursAgo));
    const expected = [...before].sort((a, b) => b.created - a.created || (a.uuid < b.uuid ? 1 : -1)).map((entry) => entry.uuid);

    const first = await mine('?per_page=5');
    expect(first.status).to.equal(200);
    expect(first.body.meta).to.include({ current_page: 1, total: 12 });
    const seen: string[] = first.body.data.map((record: { uuid: string }) => record.uuid);
    let cursor: string | null = first.body.meta.next_cursor;
    while (cursor !== null) {
      // Newer requests arrive during the walk: a skip-based page 2 would repeat an item; the cursor does not.
      await storeCreated(0);
      const page = await mine(`?per_page=5&cursor=${cursor}`);
      expect(page.status).to.equal(200);
      expect(page.body.links).to.include({ first: null, last: null, prev: null });
      expect(page.body.meta).to.include({ per_page: 5, prev_cursor: null });
      seen.push(...page.body.data.map((record: { uuid: string }) => record.uuid));
      cursor = page.body.meta.next_cursor;
      if (cursor !== null) expect(page.body.links.next).to.include(`cursor=${cursor}`);
    }
    expect(seen).to.deep.equal(expected);
  });

  it('when page is beyond 1,000, then 422 names page; at 1,000, then an empty page', async () => {
    const beyond = await mine('?page=1001');
    expect(beyond.status).to.equal(422);
    expect(beyond.body.errors).to.deep.equal({ page: ['The page field must not be greater than 1000.'] });
    const last = await mine('?page=1000');
    expect(last.status).to.equal(200);
    expect(last.body.data).to.deep.equal([]);
  });

  it('when cursor is sent with page, or is not a cursor of ours, then 422 names cursor', async () => {
    const first = await mine('?per_page=2');
    const combined = await mine(`?page=2&cursor=${first.body.meta.next_cursor}`);
    expect(combined.status).to.equal(422);
    expect(combined.body.errors).to.deep.equal({ cursor: ['The cursor field cannot be combined with page.'] });
    for (const cursor of ['bm90LWEtY3Vyc29y', 'a$b']) {
      const refused = await mine(`?cursor=${encodeURIComponent(cursor)}`);
      expect(refused.status, cursor).to.equal(422);
      expect(refused.body.errors, cursor).to.deep.equal({ cursor: ['The cursor is not valid.'] });
    }
  });
});
