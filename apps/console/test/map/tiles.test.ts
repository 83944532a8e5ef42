import { expect } from 'chai';
import { attributionHtml } from '../../src/map/tiles';

describe("the console map: the tile layer's credit (pure)", () => {
  it('when the credit has a link, then it is an anchor that opens apart from the console, without a referrer', () => {
    expect(attributionHtml({ attribution: '© OpenStreetMap contributors', attribution_url: 'https://www.openstreetmap.org/copyright' })).to.equal(
      '<a href="https://www.openstreetmap.org/copyright" target="_blank" rel="noopener noreferrer">© OpenStreetMap contributors</a>',
    );
  });

  it('when the configured text holds markup, then it is shown as written, never interpreted (Leaflet writes credits as HTML)', () => {
    expect(attributionHtml({ attribution: '<img src=x onerror=alert(1)> & "Co"', attribution_url: null })).to.equal(
      '&#60;img src=x onerror=alert(1)&#62; &#38; &#34;Co&#34;',
    );
    expect(attributionHtml({ attribution: 'Agency', attribution_url: 'https://example.org/?a=1&b="2"' })).to.include(
      'href="https://example.org/?a=1&#38;b=&#34;2&#34;"',
    );
  });
});
