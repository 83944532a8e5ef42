import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DEFAULT_SCREENING_RULES, screen, type ScreeningInput } from '../../src/domain/screening/screen.js';
import { ownFormatParts, type GeoZone, type VerticalLimit } from '../../src/domain/zones/geo-zone.js';
import { HgtTerrain, tileName } from '../../src/terrain/hgt-terrain.js';
import { areaFeature, polygon, rectangle } from '../domain/geometry/fixtures.js';

/*
 * A 3″ SRTM tile made by the test: N46E007, flat at 500 m except a 900 m hill
 * in its north-east quarter and one void sample, so every answer is known.
 */

const SAMPLES = 1201;

function makeTile(dir: string): void {
  const data = Buffer.alloc(SAMPLES * SAMPLES * 2);
  for (let row = 0; row < SAMPLES; row += 1) {
    for (let col = 0; col < SAMPLES; col += 1) {
      const hill = row < 600 && col > 600;
      data.writeInt16BE(hill ? 900 : 500, (row * SAMPLES + col) * 2);
    }
  }
  // A void at 46.1°N 7.1°E (row 1080, column 120).
  data.writeInt16BE(-32768, (1080 * SAMPLES + 120) * 2);
  writeFileSync(join(dir, tileName(46, 7)), data);
}

describe('HgtTerrain', () => {
  let dir: string;
  let terrain: HgtTerrain;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dfc-terrain-'));
    makeTile(dir);
    terrain = new HgtTerrain(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('when a box lies on the plain, on the hill, or across both, then the range is that of the samples around it', () => {
    expect(terrain.terrainRange([7.2, 46.2, 7.21, 46.21])).to.deep.equal({ min: 500, max: 500 });
    expect(terrain.terrainRange([7.8, 46.8, 7.81, 46.81])).to.deep.equal({ min: 900, max: 900 });
    expect(terrain.terrainRange([7.45, 46.45, 7.55, 46.55])).to.deep.equal({ min: 500, max: 900 });
  });

  it('when a box holds a void, leaves the tile or no folder is configured, then the terrain is unknown', () => {
    expect(terrain.terrainRange([7.099, 46.099, 7.101, 46.101])).to.equal(null);
    expect(terrain.terrainRange([7.99, 46.5, 8.01, 46.51])).to.equal(null);
    expect(new HgtTerrain(null).terrainRange([7.2, 46.2, 7.21, 46.21])).to.equal(null);
  });

  it('when names are built, then they follow the south-west corner', () => {
    expect(tileName(46, 7)).to.equal('N46E007.hgt');
    expect(tileName(-1, -78)).to.equal('S01W078.hgt');
  });

  it('when the geoid is asked, then EGM96 answers about 48.7 m at Bern and 43 m at Schiphol', () => {
    expect(terrain.geoidHeight(7.49, 46.95)).to.be.closeTo(48.7, 0.5);
    expect(terrain.geoidHeight(4.76, 52.3)).to.be.closeTo(43.0, 0.5);
  });

  describe('screening against AMSL and WGS-84 limits', () => {
    const limit = (value: number, reference: VerticalLimit['reference'], uom: VerticalLimit['uom'] = 'm'): VerticalLimit => ({
      value,
      reference,
      uom,
    });
    const zone = (lower: VerticalLimit, upper: VerticalLimit): GeoZone => {
      const geometry = polygon(rectangle(7.1, 46.1, 7.4, 46.4));
      const fields = {
        name: 'Band',
        type: 'OTHER',
        restriction: 'PROHIBITED' as const,
        lower_limit_m: 0,
        upper_limit_m: 1000,
        schedule: null,
        authority: 'FOCA',
        ctr_exemption_ceiling_m: null,
        geometry,
      };
      return { id: 'CHE.BAND', ...fields, ...ownFormatParts(fields), identifier: 'BAND', country: 'CHE', volumes: [{ geometry, lower, upper }] };
    };
    const flightOn = (maxAltitudeM: number, rules = { ...DEFAULT_SCREENING_RULES, vertical: terrain }, zones: GeoZone[] = []): ScreeningInput => ({
      polygons: [areaFeature(polygon(rectangle(7.2, 46.2, 7.21, 46.21)))],
      bbox: [7.2, 46.2, 7.21, 46.21],
      start: new Date('2026-12-01T10:00:00Z'),
      end: new Date('2026-12-01T11:00:00Z'),
      maxAltitudeM,
      operatorUuid: 'op',
      operator: { exemption_for_ctr: false },
      zones,
      approvedFlights: [],
      rules,
    });

    it('when a zone starts at 600 m AMSL over 500 m ground, then 50 m flights pass below it and 150 m flights enter it', () => {
      const band = zone(limit(600, 'AMSL'), limit(2000, 'AMSL'));
      expect(screen(flightOn(50, undefined, [band])).outcome).to.equal('Approved');
      expect(screen(flightOn(150, undefined, [band])).outcome).to.equal('Rejected');
    });

    it('when a zone ends at 1,500 ft AMSL (457 m), below the 500 m ground, then no flight meets it', () => {
      expect(screen(flightOn(100, undefined, [zone(limit(0, 'AMSL', 'ft'), limit(1500, 'AMSL', 'ft'))])).outcome).to.equal('Approved');
    });

    it('when a zone starts at 640 m above the ellipsoid, then the geoid (about 49 m here) puts it at 591 m AMSL', () => {
      const band = zone(limit(640, 'WGS84'), limit(3000, 'WGS84'));
      expect(screen(flightOn(80, undefined, [band])).outcome).to.equal('Approved');
      expect(screen(flightOn(100, undefined, [band])).outcome).to.equal('Rejected');
    });

    it('when no terrain covers the area, then an AMSL zone counts as met and the finding says the terrain is unknown', () => {
      const result = screen(
        flightOn(50, { ...DEFAULT_SCREENING_RULES, vertical: new HgtTerrain(null) }, [zone(limit(600, 'AMSL'), limit(2000, 'AMSL'))]),
      );
      expect(result.outcome).to.equal('Rejected');
      expect(result.findings[0]).to.include({ terrain_unknown: true, zone_identifier: 'BAND' });
      expect(result.findings[0]?.message).to.contain('terrain unknown');
    });
  });
});
