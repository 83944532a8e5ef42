import { expect } from 'chai';
import type { Altitude } from '@dfc/contracts';
import { bandOf, bandsOverlap, heightAboveGround, sharedBand } from '../../../src/domain/volumes/band.js';
import { NO_VERTICAL_MODEL, type VerticalModel } from '../../../src/domain/zones/vertical.js';

const BOX: [number, number, number, number] = [7.0, 46.0, 7.01, 46.01];
/** Ground between 500 and 620 m AMSL, a geoid 50 m above the ellipsoid. */
const ALPINE: VerticalModel = { terrainRange: () => ({ min: 500, max: 620 }), geoidHeight: () => 50 };

const at = (value: number, reference: Altitude['reference'] = 'AGL', units: Altitude['units'] = 'm'): Altitude => ({ value, reference, units });
const band = (lower: Altitude, upper: Altitude, model: VerticalModel = NO_VERTICAL_MODEL) => bandOf(lower, upper, BOX, model);

describe('altitude bands of volumes (deconfliction in four dimensions)', () => {
  it('when two bands share a reference, then they compare exactly, and touching at one height is no overlap', () => {
    expect(bandsOverlap(band(at(0), at(30)), band(at(80), at(120)))).to.equal(false);
    expect(bandsOverlap(band(at(0), at(30)), band(at(30), at(60)))).to.equal(false);
    expect(bandsOverlap(band(at(0), at(31)), band(at(30), at(60)))).to.equal(true);
    expect(bandsOverlap(band(at(100, 'AMSL', 'ft'), at(200, 'AMSL', 'ft')), band(at(61, 'AMSL'), at(90, 'AMSL')))).to.equal(false);
  });

  it('when the references differ and no terrain is known, then an AGL band meets every band of the other reference', () => {
    expect(bandsOverlap(band(at(0), at(30)), band(at(5000, 'AMSL'), at(6000, 'AMSL')))).to.equal(true);
    const shared = sharedBand(band(at(0), at(30)), band(at(100, 'AMSL'), at(150, 'AMSL')));
    expect(shared).to.deep.equal({ reference: 'AMSL', lower_m: 100, upper_m: 150 });
  });

  it('when the terrain is known, then an AGL band spans its lowest ground plus its lower limit to its highest ground plus its upper', () => {
    const low = band(at(0), at(30), ALPINE);
    expect(low).to.include({ amsl_lower_m: 500, amsl_upper_m: 650 });
    expect(bandsOverlap(low, band(at(650, 'AMSL'), at(700, 'AMSL'), ALPINE))).to.equal(false);
    expect(bandsOverlap(low, band(at(640, 'AMSL'), at(700, 'AMSL'), ALPINE))).to.equal(true);
    expect(sharedBand(low, band(at(640, 'AMSL'), at(700, 'AMSL'), ALPINE))).to.deep.equal({ reference: 'AMSL', lower_m: 640, upper_m: 650 });
  });

  it('when a band is in WGS-84 heights, then it is placed above mean sea level through the geoid', () => {
    const ellipsoidal = band(at(700, 'WGS84'), at(750, 'WGS84'), ALPINE);
    expect(ellipsoidal).to.include({ amsl_lower_m: 650, amsl_upper_m: 700 });
    expect(bandsOverlap(ellipsoidal, band(at(0), at(30), ALPINE))).to.equal(false);
  });

  it('the height above the ground of an upper limit is measured from the lowest ground, from mean sea level where none is known', () => {
    expect(heightAboveGround(at(100), BOX, ALPINE)).to.equal(100);
    expect(heightAboveGround(at(600, 'AMSL'), BOX, ALPINE)).to.equal(100);
    expect(heightAboveGround(at(650, 'WGS84'), BOX, ALPINE)).to.equal(100);
    expect(heightAboveGround(at(200, 'AMSL', 'ft'), BOX, NO_VERTICAL_MODEL)).to.be.closeTo(60.96, 1e-9);
  });
});
