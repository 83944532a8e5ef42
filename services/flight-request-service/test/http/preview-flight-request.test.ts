import { expect } from 'chai';
import { unrecorded } from '@dfc/kit/testing';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, square, submission } from '../support/fixtures.js';
import { zoneBody } from '../support/zones.js';

/** Every document of the service's database, counted per collection. */
async function documentCounts(connection: Connection): Promise<Record<string, number>> {
  const db = connection.db!;
  const collections = await db.listCollections().toArray();
  const counts = await Promise.all(
    collections.map(async ({ name }) => [name, await unrecorded(() => db.collection(name).countDocuments())] as const),
  );
  return Object.fromEntries(counts.sort(([a], [b]) => a.localeCompare(b)));
}

describe('POST /api/flight-requests/preview', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
  });
  after(async () => t.close());

  const as = () => operatorPrincipal(operatorUuid);
  const bodyAt = (lon: number, overrides: Record<string, unknown> = {}) =>
    submission(operatorUuid, { flight_area: featureCollection(square(lon + 0.05, 46.05)), ...overrides });
  const preview = (body: unknown, principal = as()) => t.call('POST', '/api/flight-requests/preview', { as: principal, body });
  const zone = async (lon: number, overrides: Record<string, unknown>) => {
    const response = await t.call('POST', '/api/zones', { as: admin, body: zoneBody(overrides, lon, 46, 0.2) });
    expect(response.status).to.equal(201);
    return response.body.data.id as string;
  };

  it('when bodies would be approved, sent to review or rejected, then 200 with that outcome, and no document or event comes of it', async () => {
    const reviewZone = await zone(30, { authority: 'LVNL' });
    const prohibited = await zone(31, { restriction: 'PROHIBITED', type: 'MILITARY', authority: 'MIL', name: 'Range' });
    const countsBefore = await documentCounts(t.connection);
    const events = await t.captureEvents();
    try {
      const approved = await preview(bodyAt(29));
      const pending = await preview(bodyAt(30, { max_altitude: 150 }), admin);
      const rejected = await preview(bodyAt(31));

      expect(approved.status).to.equal(200);
      expect(approved.body.data).to.deep.include({ status: 'Approved', findings: [], review_items: [] });
      expect(approved.body.data.area).to.include.keys('bbox', 'centroid', 'area_m2', 'feature_count');

      expect(pending.body.data.status).to.equal('Pending');
      expect(pending.body.data.review_items).to.deep.equal([
        {
          kind: 'altitude',
          authority: 'NATIONAL',
          zone_id: null,
          finding_codes: ['ALTITUDE_ABOVE_LIMIT'],
          message: pending.body.data.review_items[0].message,
        },
        {
          kind: 'zone_authorisation',
          authority: 'LVNL',
          zone_id: reviewZone,
          finding_codes: ['ZONE_REQUIRES_AUTHORISATION'],
          message: pending.body.data.review_items[1].message,
        },
      ]);

      expect(rejected.body.data.status).to.equal('Rejected');
      expect(rejected.body.data.review_items).to.deep.equal([]);
      expect(rejected.body.data.findings.map((finding: { code: string; zone_id: string }) => [finding.code, finding.zone_id])).to.deep.equal([
        ['ZONE_PROHIBITED', prohibited],
      ]);

      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await documentCounts(t.connection)).to.deep.equal(countsBefore);
      expect(events.events).to.deep.equal([]);
    } finally {
      await events.close();
    }
  });

  it('when the same body is then submitted, then the submission gets the outcome the preview showed', async () => {
    await zone(32, { authority: 'LVNL' });
    const body = bodyAt(32);
    const previewed = await preview(body);
    const submitted = await t.call('POST', '/api/flight-requests', { as: as(), body });
    expect(submitted.status).to.equal(201);
    expect(submitted.body.data.status).to.equal(previewed.body.data.status).and.equal('Pending');
    expect(submitted.body.data.review.findings).to.deep.equal(previewed.body.data.findings);
  });

  it('when the body breaks the rules, then the same 422 a submission gets', async () => {
    const body = bodyAt(33, { max_altitude: 9000, flight_area: { type: 'FeatureCollection', features: [] } });
    const previewed = await preview(body);
    const submitted = await t.call('POST', '/api/flight-requests', { as: as(), body });
    expect(previewed.status).to.equal(422);
    expect(previewed.body).to.deep.equal(submitted.body);
  });

  it('when an operator key names another operator, or a reviewer previews, then 403', async () => {
    expect((await preview(bodyAt(34), operatorPrincipal(randomUUID()))).status).to.equal(403);
    expect((await preview(bodyAt(34), reviewerPrincipal('LVNL'))).status).to.equal(403);
  });

  it('when GET or DELETE is sent to /preview, then 405 with Allow (it is not a flight request named "preview")', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await t.call(method, '/api/flight-requests/preview', { as: as(), ...(method === 'DELETE' ? { body: { reason: 'x' } } : {}) });
      expect(response.status, method).to.equal(405);
      expect(response.headers.get('allow'), method).to.equal('POST, OPTIONS');
    }
  });

  it('when the operator is unknown to the service, then 422 on operator_uuid', async () => {
    const stranger = randomUUID();
    const response = await preview(submission(stranger), operatorPrincipal(stranger));
    expect(response.status).to.equal(422);
    expect(response.body.errors).to.have.key('operator_uuid');
  });
});
