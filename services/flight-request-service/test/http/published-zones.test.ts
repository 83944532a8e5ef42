import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { unrecorded } from '@dfc/kit/testing';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, square, submission } from '../support/fixtures.js';

/*
 * The reference samples (test/support/airspace, copied from ../shared/airspace), imported as authorities publish
 * them: ED-318 (the Swiss test dataset) and ED-269, then read back as an
 * operator would (geo-awareness) and screened as their content says.
 */

const SAMPLES = new URL('../support/airspace/', import.meta.url);
const sample = (file: string): Record<string, any> => JSON.parse(readFileSync(new URL(file, SAMPLES), 'utf8'));

describe('POST /api/zones/import of ED-269 and ED-318 documents, GET /api/zones for every key', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
  });
  after(async () => t.close());

  const call = (method: string, path: string, body?: unknown, as = admin, headers: Record<string, string> = {}) =>
    t.call(method, path, { as, headers, ...(body === undefined ? {} : { body }) });
  const submitIn = async (ring: number[][][], maxAltitude: number) => {
    const response = await call(
      'POST',
      '/api/flight-requests',
      submission(operatorUuid, { flight_area: featureCollection(ring), max_altitude: maxAltitude }),
      operatorPrincipal(operatorUuid),
    );
    expect(response.status).to.equal(201);
    return response.body.data;
  };
  // Inside LSZB003 (Bern-Belp), whose lower limit is 60 m AGL.
  const BERN = square(7.489, 46.9575, 0.002);

  describe('the ED-318 sample', () => {
    it('when imported, then its three zones are created as one dataset issue, with identifier and country', async () => {
      const response = await call('POST', '/api/zones/import', sample('sample-ed318.json'));
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.include({ format: 'ED-318', created: 3, updated: 0, unchanged: 0, retired: 0, total: 3 });
      expect(response.body.data.dataset).to.deep.equal({
        id: 'ED-318:FOCA',
        issued: '2025-03-13T13:58:00+01:00',
        valid_from: '2016-09-15T00:00:00+02:00',
        valid_to: null,
        already_imported: false,
      });
    });

    it('when an operator lists the zones around Bern in French, then it reads names, limits as published and the authority to ask', async () => {
      const listed = await call('GET', '/api/zones?bbox=7.4,46.9,7.6,47.0', undefined, operatorPrincipal(operatorUuid), {
        'Accept-Language': 'fr-CH, en;q=0.5',
      });
      expect(listed.status).to.equal(200);
      const bern = listed.body.data.find((zone: { identifier: string }) => zone.identifier === 'LSZB003');
      expect(bern).to.include({
        id: 'CHE.LSZB003',
        country: 'CHE',
        restriction: 'REQ_AUTHORISATION',
        authority: 'Skyguide',
        status: 'published',
        lower_limit_m: 60,
      });
      expect(bern.volumes).to.deep.equal([{ lower: { value: 60, reference: 'AGL', uom: 'm' }, upper: { value: 99999, reference: 'AGL', uom: 'm' } }]);
      expect(bern.published).to.deep.include({ format: 'ED-318', published_type: 'REQ_AUTHORIZATION', variant: 'COMMON', reasons: ['AIR_TRAFFIC'] });
      expect(bern.published.restriction_conditions).to.match(/exemption permit/);
      expect(bern.published.extended_properties).to.deep.equal({ addInfo: 'Exemption permits may be applied for at the competent authority.' });
      expect(bern.published.authorities[0]).to.include({
        name: 'Skyguide',
        service: 'Special Flight Office (SFO)',
        purpose: 'AUTHORIZATION',
        interval_before: 'P10DT00H',
      });
      const langmatt = await call('GET', '/api/zones/CHE.BLns058', undefined, reviewerPrincipal('NATURE'), { 'Accept-Language': 'fr' });
      expect(langmatt.body.data.name).to.equal('Objet naturel protégé Langmatt');
      expect(langmatt.body.data.published.names).to.have.length(4);
      const english = await call('GET', '/api/zones/CHE.BLns058', undefined, operatorPrincipal(operatorUuid), { 'Accept-Language': 'en' });
      expect(english.body.data.name).to.equal('Protected natural object Langmatt');
      expect(english.body.data.published.authorities[0]).to.include({ email: 'naturundlandschaft@bl.ch', phone: '+41 61 552 21 21' });
    });

    it('when a flight window is asked, then each zone shows its active intervals in it', async () => {
      const listed = await call(
        'GET',
        '/api/zones?bbox=7.4,46.9,7.6,47.0&from=2026-12-01T10:00:00Z&to=2026-12-01T12:00:00Z',
        undefined,
        operatorPrincipal(operatorUuid),
      );
      const bern = listed.body.data.find((zone: { identifier: string }) => zone.identifier === 'LSZB003');
      expect(bern.active_intervals).to.deep.equal([{ start: '2026-12-01T10:00:00+00:00', end: '2026-12-01T12:00:00+00:00' }]);
      expect((await call('GET', '/api/zones?from=2026-12-01T10:00:00Z', undefined, operatorPrincipal(operatorUuid))).status).to.equal(422);
      expect((await call('GET', '/api/zones?bbox=8,47,7,48', undefined, operatorPrincipal(operatorUuid))).status).to.equal(422);
    });

    it('when a flight stays below LSZB003’s 60 m AGL floor, then it is Approved; above it, Skyguide reviews, the finding naming CHE LSZB003', async () => {
      const low = await submitIn(BERN, 50);
      expect(low.status).to.equal('Approved');
      const high = await submitIn(BERN, 100);
      expect(high.status).to.equal('Pending');
      expect(high.review.items[0]).to.include({ kind: 'zone_authorisation', authority: 'Skyguide', zone_id: 'CHE.LSZB003' });
      const finding = high.review.findings.find((item: { code: string }) => item.code === 'ZONE_REQUIRES_AUTHORISATION');
      expect(finding).to.include({ zone_id: 'CHE.LSZB003', zone_identifier: 'LSZB003', zone_country: 'CHE' });
      expect(finding.message).to.contain('CHE LSZB003, 60 m AGL–99999 m AGL');
    });

    it('when the same issue is imported again, then nothing is written and the answer says so', async () => {
      const versions = async () =>
        unrecorded(() => t.service.deps.zones.model.find({ dataset_id: 'ED-318:FOCA' }, { _id: 1, version: 1 }).sort({ _id: 1 }).lean().exec());
      const before = await versions();
      const again = await call('POST', '/api/zones/import', sample('sample-ed318.json'));
      expect(again.status).to.equal(200);
      expect(again.body.data).to.deep.include({ created: 0, updated: 0, unchanged: 3, retired: 0 });
      expect(again.body.data.dataset.already_imported).to.equal(true);
      expect(await versions()).to.deep.equal(before);
    });

    it('when a newer issue drops a zone and changes another, then the dropped one is retired and only the changed one gets a new version', async () => {
      const newer = sample('sample-ed318.json');
      newer['metadata'].issued = '2026-01-10T08:00:00+01:00';
      newer['features'] = newer['features'].filter((feature: any) => feature.properties.identifier !== 'LSTB002');
      newer['features'][0].geometry.layer.lower = 0;
      const before = (await call('GET', '/api/zones/CHE.BLns058')).body.data.version;
      const response = await call('POST', '/api/zones/import', newer);
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.include({ created: 0, updated: 1, unchanged: 1, retired: 1, total: 2 });
      expect((await call('GET', '/api/zones/CHE.BLns058')).body.data.version).to.equal(before);
      expect((await call('GET', '/api/zones/CHE.LSTB002')).body.data.status).to.equal('retired');
      expect((await call('GET', '/api/zones/CHE.LSTB002', undefined, operatorPrincipal(operatorUuid))).status).to.equal(404);
      const retired = await call('GET', '/api/zones?status=retired&per_page=100');
      expect(retired.body.data.map((zone: { id: string }) => zone.id)).to.include('CHE.LSTB002');
      const versions = await call('GET', '/api/zones/CHE.LSZB003/versions');
      expect(
        versions.body.data.map((zone: { version: number; volumes: Array<{ lower: { value: number } }> }) => [
          zone.version,
          zone.volumes[0]?.lower.value,
        ]),
      ).to.deep.equal([
        [0, 60],
        [1, 0],
      ]);
      expect((await call('GET', '/api/zones/CHE.LSTB002/versions')).body.data.map((zone: { status: string }) => zone.status)).to.deep.equal([
        'published',
        'retired',
      ]);
      expect((await call('GET', '/api/zones/CHE.LSZB003/versions', undefined, operatorPrincipal(operatorUuid))).status).to.equal(403);
      // The floor is now the ground: a low flight in Bern needs Skyguide too.
      expect((await submitIn(BERN, 50)).status).to.equal('Pending');

      const older = sample('sample-ed318.json');
      const refused = await call('POST', '/api/zones/import', older);
      expect(refused.status).to.equal(422);
      expect(refused.body.errors['metadata.issued'][0]).to.match(/older than the issue of ED-318:FOCA in force/);
    });

    it('when zones break the schema or the rules, then 422 names each path with the zone’s identifier, and nothing is written', async () => {
      const bad = sample('sample-ed318.json');
      bad['metadata'].issued = '2027-01-01T00:00:00Z';
      bad['features'][0].properties.type = 'MAYBE';
      bad['features'][0].geometry.layer.upperReference = 'QNH';
      bad['features'][1].properties.limitedApplicability = [{ startDateTime: '2026-12-31T23:59:60+00:00', endDateTime: '2027-01-01T10:00:00+00:00' }];
      bad['features'][2].geometry.coordinates[0].pop();
      bad['features'][2].properties.name[0].text = 'x'.repeat(201);
      const count = () => unrecorded(() => t.service.deps.zones.model.countDocuments().exec());
      const before = await count();
      const response = await call('POST', '/api/zones/import', bad);
      expect(response.status).to.equal(422);
      const errors = response.body.errors as Record<string, string[]>;
      expect(errors['features.0.properties.type']?.[0]).to.contain('(zone LSZB003)');
      expect(errors['features.0.geometry.layer.upperReference']?.[0]).to.contain('(zone LSZB003)');
      expect(errors['features.1.properties.limitedApplicability.0.startDateTime']?.[0]).to.contain('(zone BLns058) must be a valid date-time');
      expect(Object.keys(errors).some((path) => path.startsWith('features.2.geometry.coordinates'))).to.equal(true);
      expect(errors['features.2.properties.name.0.text']?.[0]).to.contain('(zone LSTB002)');
      expect(await count()).to.equal(before);
    });
  });

  describe('the ED-269 sample', () => {
    it('when imported, then its zone is permanent, without a ceiling, and LSXX City Sample reviews flights in it', async () => {
      const response = await call('POST', '/api/zones/import', sample('sample-ed269.json'));
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.include({ format: 'ED-269', created: 1, total: 1 });
      const zone = (await call('GET', '/api/zones/CHE.LSXX', undefined, operatorPrincipal(operatorUuid))).body.data;
      expect(zone).to.include({ identifier: 'LSXX', country: 'CHE', authority: 'LSXX City Sample', upper_limit_m: 100000 });
      expect(zone.applicability).to.deep.equal({ permanent: true, periods: [] });
      expect(zone.published).to.deep.include({ format: 'ED-269', published_type: 'REQ_AUTHORISATION', restriction_conditions: 'RST02' });
      expect(zone.message).to.equal('MSG01');
      const record = await submitIn(square(6.168, 46.214, 0.001), 100);
      expect(record.status).to.equal('Pending');
      expect(record.review.items[0]).to.include({ authority: 'LSXX City Sample', zone_id: 'CHE.LSXX' });
    });

    it('when a zone has two volumes, one a circle in feet AMSL, then both are kept and each is screened by its own band', async () => {
      const document = sample('sample-ed269.json');
      const zone = document['UASZoneList'][0];
      Object.assign(zone, {
        identifier: 'LSXY',
        restriction: 'PROHIBITED',
        applicability: [
          {
            permanent: 'NO',
            startDateTime: '2026-01-01T00:00:00+01:00',
            endDateTime: '2030-01-01T00:00:00+01:00',
            dailyPeriod: [{ day: ['ANY'], startTime: '00:00:00Z', endTime: '00:00:00Z' }],
          },
        ],
      });
      zone.geometry[0].upperLimit = '120';
      zone.geometry.push({
        uomDimensions: 'FT',
        lowerLimit: 0,
        lowerVerticalReference: 'AMSL',
        upperLimit: 5000,
        upperVerticalReference: 'AMSL',
        horizontalProjection: { type: 'Circle', center: [6.3, 46.3], radius: 500 },
      });
      document['createdAt'] = '2026-02-01T00:00:00Z';
      const response = await call('POST', '/api/zones/import', document);
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const stored = (await call('GET', '/api/zones/CHE.LSXY')).body.data;
      expect(stored.volumes).to.have.length(2);
      expect(stored.volumes[1]).to.deep.include({
        lower: { value: 0, reference: 'AMSL', uom: 'ft' },
        upper: { value: 5000, reference: 'AMSL', uom: 'ft' },
      });
      expect(stored.volumes[1].geometry.type).to.equal('Polygon');
      // In the circle, with no terrain configured, an AMSL band counts as met, and the finding says why.
      const inCircle = await submitIn(square(6.2995, 46.2995, 0.001), 50);
      expect(inCircle.status).to.equal('Rejected');
      expect(inCircle.review.findings[0]).to.include({ code: 'ZONE_PROHIBITED', zone_identifier: 'LSXY', terrain_unknown: true });
      expect(inCircle.review.findings[0].message).to.contain('terrain unknown');
    });
  });

  it('when an own-format zone’s schedule starts at a leap second, then 422 rather than a zone active always', async () => {
    const response = await call('POST', '/api/zones', {
      name: 'Fireworks',
      type: 'TEMPORARY',
      restriction: 'PROHIBITED',
      lower_limit_m: 0,
      upper_limit_m: 300,
      authority: 'POLICE',
      schedule: { start: '2026-12-31T23:59:60+00:00', end: '2027-01-01T01:00:00+00:00' },
      geometry: { type: 'Polygon', coordinates: square(30, 10, 0.1) },
    });
    expect(response.status).to.equal(422);
    expect(response.body.errors).to.have.key('schedule.start');
  });
});
