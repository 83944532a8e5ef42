import { expect } from 'chai';
import { areasIntersect } from '../../../src/domain/geometry/flight-area.js';
import { areaFeature, polygon, rectangle } from './fixtures.js';

/** An L: the square [0,2]² without its top-right quarter. */
const L_SHAPE = areaFeature(
  polygon([
    [0, 0],
    [2, 0],
    [2, 1],
    [1, 1],
    [1, 2],
    [0, 2],
    [0, 0],
  ]),
);

describe('areasIntersect', () => {
  it('when the areas overlap, then they intersect', () => {
    expect(areasIntersect([L_SHAPE], [areaFeature(polygon(rectangle(0.5, 0.5, 0.8, 0.8)))])).to.equal(true);
  });

  it('when an area sits in the notch of an L (inside its bbox, outside its shape), then they do not intersect', () => {
    expect(areasIntersect([L_SHAPE], [areaFeature(polygon(rectangle(1.2, 1.2, 1.8, 1.8)))])).to.equal(false);
  });

  it('when the areas only share an edge, then they intersect (a boundary belongs to the area)', () => {
    expect(areasIntersect([areaFeature(polygon(rectangle(0, 0, 1, 1)))], [areaFeature(polygon(rectangle(1, 0, 2, 1)))])).to.equal(true);
  });

  it('when any feature of one area meets any of the other, then they intersect', () => {
    const far = areaFeature(polygon(rectangle(10, 10, 11, 11)));
    expect(areasIntersect([far, L_SHAPE], [areaFeature(polygon(rectangle(0.1, 0.1, 0.2, 0.2)))])).to.equal(true);
    expect(areasIntersect([far], [L_SHAPE])).to.equal(false);
  });
});
