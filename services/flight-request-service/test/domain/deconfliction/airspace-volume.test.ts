import { expect } from 'chai';
import fc from 'fast-check';
import { boundsRing } from '@dfc/contracts';
import type { AreaPolygon } from '../../../src/domain/geometry/flight-area.js';
import { cellsOf } from '../../../src/domain/deconfliction/airspace-volume.js';

const HOUR = 3_600_000;

/** Edges unrounded: the property below puts one square's corner exactly on the other's. */
function square(west: number, south: number, side: number): AreaPolygon {
  return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [boundsRing([west, south, west + side, south + side])] } };
}

/** Sides of small flights (at home in fine cells) and of large ones (in coarse cells), in degrees. */
const side = fc.oneof(fc.double({ min: 0.0001, max: 0.01, noNaN: true }), fc.double({ min: 0.01, max: 0.3, noNaN: true }));

describe('cellsOf (the reservation ledger grid)', () => {
  it('when two volumes of any sizes share a point and an instant, then they share a cell-hour where one of them is at home, wherever the point lies (cell edges included)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -170, max: 170, noNaN: true }),
        fc.double({ min: -80, max: 80, noNaN: true }),
        side,
        side,
        fc.integer({ min: 0, max: 48 * 60 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 600 }),
        (lon, lat, sideA, sideB, startMinute, lengthA, lengthB) => {
          const t0 = Date.UTC(2026, 11, 1) + startMinute * 60_000;
          // A ends where B's square starts (corner to corner); their windows share the minute at t0.
          const a = {
            polygons: [square(lon - sideA, lat - sideA, sideA)],
            start: new Date(t0 - lengthA * 60_000 + 60_000),
            end: new Date(t0 + 60_000),
          };
          const b = { polygons: [square(lon, lat, sideB)], start: new Date(t0), end: new Date(t0 + lengthB * 60_000) };
          const ofA = new Map(cellsOf(a).map((cell) => [cell.id, cell.own]));
          expect(cellsOf(b).some((cell) => ofA.has(cell.id) && (cell.own || ofA.get(cell.id)))).to.equal(true);
        },
      ),
    );
  });

  it('when a small flight lasts an hour, then it is at home in its fine cells and marks the coarse cell around them, sorted', () => {
    const start = new Date(Date.UTC(2026, 11, 1, 10, 30));
    const cells = cellsOf({ polygons: [square(5.1, 52.08, 0.002)], start, end: new Date(start.getTime() + HOUR) });
    expect(cells).to.deep.equal([
      { id: 'u178:2026-12-01T10', own: false },
      { id: 'u178:2026-12-01T11', own: false },
      { id: 'u178k0:2026-12-01T10', own: true },
      { id: 'u178k0:2026-12-01T11', own: true },
      { id: 'u178k1:2026-12-01T10', own: true },
      { id: 'u178k1:2026-12-01T11', own: true },
    ]);
  });

  it('when a flight is larger than a few fine cells, then it is at home in the coarse cells only', () => {
    const start = new Date(Date.UTC(2026, 11, 1, 10));
    const cells = cellsOf({ polygons: [square(5.1, 52.08, 0.05)], start, end: new Date(start.getTime() + HOUR) });
    expect(cells).to.deep.equal([{ id: 'u178:2026-12-01T10', own: true }]);
  });

  it('when an area is split at the antimeridian into a MultiPolygon, then only the cells of its two parts are taken', () => {
    const split: AreaPolygon = {
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [179.99, 10],
              [180, 10],
              [180, 10.01],
              [179.99, 10.01],
              [179.99, 10],
            ],
          ],
          [
            [
              [-180, 10],
              [-179.99, 10],
              [-179.99, 10.01],
              [-180, 10.01],
              [-180, 10],
            ],
          ],
        ],
      },
    };
    const start = new Date(Date.UTC(2026, 11, 1, 10));
    expect(cellsOf({ polygons: [split], start, end: new Date(start.getTime() + HOUR) }).length).to.be.at.most(8);
  });
});
