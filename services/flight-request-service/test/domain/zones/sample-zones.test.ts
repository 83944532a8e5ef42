import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { checkFlightArea } from '../../../src/domain/geometry/flight-area.js';
import { DEFAULT_SCREENING_RULES, screen } from '../../../src/domain/screening/screen.js';
import type { GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { parseZoneImport } from '../../../src/domain/zones/parse-zone-import.js';
import { ZoneIndex } from '../../../src/domain/zones/zone-index.js';
import { collection, feature, polygon, rectangle } from '../geometry/fixtures.js';

const file = new URL('../../../data/sample-zones.ed318.json', import.meta.url);

function sampleZones(): GeoZone[] {
  const parsed = parseZoneImport(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.entries.flatMap((entry) => (entry.ok && entry.id ? [{ id: entry.id, ...entry.zone }] : []));
}

/** Screens a small square flight at [west, south] against the sample zones. */
function screenAt(west: number, south: number, maxAltitudeM = 50, exemptionForCtr = false) {
  const checked = checkFlightArea(collection(feature(polygon(rectangle(west, south, west + 0.005, south + 0.003)))));
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const { polygons, summary } = checked.area;
  return screen({
    polygons,
    bbox: summary.bbox,
    start: new Date('2026-12-01T10:00:00Z'),
    end: new Date('2026-12-01T11:00:00Z'),
    maxAltitudeM,
    operatorUuid: 'op',
    operator: { exemption_for_ctr: exemptionForCtr },
    zones: new ZoneIndex(sampleZones()).search(summary.bbox),
    approvedFlights: [],
    rules: DEFAULT_SCREENING_RULES,
  });
}

describe('data/sample-zones.ed318.json', () => {
  it('when imported, then every one of its ~25 zones is valid and has its own id', () => {
    const zones = sampleZones();
    expect(zones.length).to.be.within(20, 40);
    expect(new Set(zones.map((zone) => zone.id)).size).to.equal(zones.length);
    expect(new Set(zones.map((zone) => zone.type))).to.include.members(['CTR', 'AIRPORT', 'MILITARY', 'NATURE', 'TEMPORARY']);
    expect(zones.every((zone) => zone.country === 'NLD' && zone.identifier !== null)).to.equal(true);
  });

  it('when a flight is over the Schiphol runways, then it is Rejected', () => {
    expect(screenAt(4.74, 52.31).outcome).to.equal('Rejected');
  });

  it('when the Schiphol CTR is read, then its limits are as the AIP publishes them: surface to 3,000 ft AMSL', () => {
    const ctr = sampleZones().find((zone) => zone.id === 'NLD.EHAMCTR');
    expect(ctr?.volumes.map((volume) => [volume.lower, volume.upper])).to.deep.equal([
      [
        { value: 0, reference: 'AGL', uom: 'ft' },
        { value: 3000, reference: 'AMSL', uom: 'ft' },
      ],
    ]);
    expect(ctr).to.include({ type: 'CTR', ctr_exemption_ceiling_m: 60, authority: 'LVNL' });
  });

  it('when a flight is in the Schiphol CTR, then LVNL reviews it unless a CTR exemption covers 50 m', () => {
    expect(screenAt(4.62, 52.25).items.map((item) => [item.authority, item.zone_id])).to.deep.equal([['LVNL', 'NLD.EHAMCTR']]);
    expect(screenAt(4.62, 52.25, 50, true).outcome).to.equal('Approved');
  });

  it('when a flight is in the countryside of Friesland, then it is Approved', () => {
    expect(screenAt(5.95, 53.0)).to.deep.equal({ outcome: 'Approved', findings: [], items: [] });
  });
});
