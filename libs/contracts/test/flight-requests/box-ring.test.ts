import { expect } from 'chai';
import { boundsRing, boxRing } from '../../src/flight-requests/box-ring.js';

describe('boxRing', () => {
  it('when given a corner and a side, then the square closes on its corner, counter-clockwise, its far edges on the micro-degree', () => {
    expect(boxRing([5.1, 52.08], 0.01)).to.deep.equal([
      [5.1, 52.08],
      [5.11, 52.08],
      [5.11, 52.09],
      [5.1, 52.09],
      [5.1, 52.08],
    ]);
  });

  it('when given a width and a height, then the box is that wide and that tall', () => {
    expect(boxRing([4.89, 51.99], [0.03, 0.02])).to.deep.equal([
      [4.89, 51.99],
      [4.92, 51.99],
      [4.92, 52.01],
      [4.89, 52.01],
      [4.89, 51.99],
    ]);
  });

  it('when given bounds, then the ring has exactly those edges, unrounded', () => {
    const east = 4.89 + 0.01;
    expect(boundsRing([4.89, 52.37, east, 52.38])).to.deep.equal([
      [4.89, 52.37],
      [east, 52.37],
      [east, 52.38],
      [4.89, 52.38],
      [4.89, 52.37],
    ]);
  });
});
