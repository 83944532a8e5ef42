import { expect } from 'chai';
import { admin, operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, isoZ, square, submission } from '../support/fixtures.js';
import { zoneBody } from '../support/zones.js';

/**
 * Each screening outcome as the client sees it in `review`, with zones created
 * through the zones API. Every test flies in an area of its own.
 */
describe('POST /api/flight-requests screening outcomes', () => {
  let t: TestService;
  let operatorUuid: string;
  let exempt: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
    exempt = await t.seedOperator({ exemption_for_ctr: true });
  });
  after(async () => t.close());

  const zone = async (lon: number, overrides: Record<string, unknown>) => {
    const response = await t.call('POST', '/api/zones', { as: admin, body: zoneBody(overrides, lon, 45, 0.2) });
    expect(response.status).to.equal(201);
    return response.body.data.id as string;
  };
  const submitAt = async (lon: number, overrides: Record<string, unknown> = {}, operator = operatorUuid) => {
    const response = await t.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(operator),
      body: submission(operator, { flight_area: featureCollection(square(lon + 0.05, 45.05)), ...overrides }),
    });
    expect(response.status).to.equal(201);
    return response.body.data;
  };

  it('when the area touches a PROHIBITED zone, then Rejected at once with the finding and no items', async () => {
    const zoneId = await zone(20, { restriction: 'PROHIBITED', type: 'MILITARY', authority: 'MIL', name: 'Range' });
    const record = await submitAt(20);
    expect(record.status).to.equal('Rejected');
    expect(record.review.items).to.deep.equal([]);
    expect(record.review.findings.map((finding: { code: string; zone_id: string }) => [finding.code, finding.zone_id])).to.deep.equal([
      ['ZONE_PROHIBITED', zoneId],
    ]);
    expect(record.status_history.map((entry: { status: string; actor: string }) => [entry.status, entry.actor])).to.deep.equal([
      ['Pending', 'operator'],
      ['Rejected', 'screening'],
    ]);
  });

  it('when the area touches a REQ_AUTHORISATION zone, then Pending with an item for the zone’s authority', async () => {
    const zoneId = await zone(21, { authority: 'LVNL' });
    const record = await submitAt(21);
    expect(record.status).to.equal('Pending');
    expect(record.review.complete).to.equal(false);
    expect(record.review.items).to.have.length(1);
    expect(record.review.items[0]).to.include({ kind: 'zone_authorisation', authority: 'LVNL', zone_id: zoneId, status: 'pending' });
  });

  it('when a CTR-exempt operator flies within the exemption ceiling, then Approved with CTR_EXEMPTION_APPLIED', async () => {
    await zone(22, { type: 'CTR', ctr_exemption_ceiling_m: 120 });
    const record = await submitAt(22, { max_altitude: 100 }, exempt);
    expect(record.status).to.equal('Approved');
    expect(record.review.findings.map((finding: { code: string }) => finding.code)).to.include('CTR_EXEMPTION_APPLIED');
    const above = await submitAt(22, { max_altitude: 119, purpose: 'same zone, other operator' });
    expect(above.status).to.equal('Pending');
  });

  it('when max_altitude is above 120 m, then an altitude item for the national authority', async () => {
    const record = await submitAt(23, { max_altitude: 121 });
    expect(record.status).to.equal('Pending');
    expect(record.review.items.map((item: { kind: string; authority: string }) => [item.kind, item.authority])).to.deep.equal([
      ['altitude', 'NATIONAL'],
    ]);
  });

  it('when another operator’s Approved flight overlaps in area and time, then a deconfliction item and a finding with the shared volume, naming neither the flight nor its operator', async () => {
    const other = await t.seedOperator();
    // One window for both: each submission() would otherwise start on its own second, and the shared window with it.
    const start = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000);
    const window = { start_time: isoZ(start), end_time: isoZ(new Date(start.getTime() + 7_200_000)) };
    const first = await submitAt(24, window, other);
    expect(first.status).to.equal('Approved');
    const record = await submitAt(24, window);
    expect(record.status).to.equal('Pending');
    expect(record.review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);
    const overlap = record.review.findings.find((finding: { code: string }) => finding.code === 'DECONFLICTION_OVERLAP');
    expect(overlap.conflict).to.deep.include({
      start_time: first.start_time.replace(/Z$/, '+00:00'),
      end_time: first.end_time.replace(/Z$/, '+00:00'),
      lower_altitude_m: 0,
      upper_altitude_m: 100,
    });
    overlap.conflict.bbox.forEach((edge: number, i: number) => expect(edge).to.be.closeTo(first.area.bbox[i], 1e-9));
    expect(JSON.stringify(record.review)).not.to.contain(first.uuid);
    expect(JSON.stringify(record.review)).not.to.contain(first.operator_uuid);
  });

  it('when the zone’s schedule does not meet the flight window, then the zone is ignored', async () => {
    const start = new Date(Date.now() + 48 * 3_600_000);
    await zone(25, { restriction: 'PROHIBITED', schedule: { start: start.toISOString(), end: new Date(start.getTime() + 3_600_000).toISOString() } });
    const record = await submitAt(25);
    expect(record.status).to.equal('Approved');
    const later = await submitAt(25, { start_time: isoZ(start), end_time: isoZ(new Date(start.getTime() + 1_800_000)) });
    expect(later.status).to.equal('Rejected');
  });
});
