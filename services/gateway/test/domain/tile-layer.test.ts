import { expect } from 'chai';
import { ConfigError } from '@dfc/kit/config';
import { loadGatewayConfig } from '../../src/config.js';
import { consoleTileLayer, type TileSettings } from '../../src/domain/tile-layer.js';

const osm: TileSettings = {
  url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  attribution: '© OpenStreetMap contributors',
  attributionUrl: 'https://www.openstreetmap.org/copyright',
  maxZoom: 19,
};

/** The problems a refused layer names, one per line of the error. */
function problemsOf(settings: TileSettings): string[] {
  try {
    consoleTileLayer(settings);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('the layer was accepted');
}

describe('the console tile layer (CONSOLE_TILE_*)', () => {
  it('when nothing is set, then there is no layer: the console draws the shipped Natural Earth basemap', () => {
    expect(consoleTileLayer({ url: '', attribution: '', attributionUrl: '', maxZoom: 19 })).to.equal(null);
  });

  it("when OpenStreetMap's XYZ template is set, then the map fills it as written and the CSP names its origin", () => {
    expect(consoleTileLayer(osm)).to.deep.equal({
      url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      attribution: '© OpenStreetMap contributors',
      attributionUrl: 'https://www.openstreetmap.org/copyright',
      maxZoom: 19,
      origin: 'https://tile.openstreetmap.org',
    });
  });

  it("when a WMTS RESTful template (Web Mercator) is set, then TileMatrix, TileCol and TileRow become Leaflet's z, x and y; a key in the query is kept", () => {
    const layer = consoleTileLayer({
      ...osm,
      url: 'https://wmts.example.org/1.0.0/topo/default/EPSG:3857/{TileMatrix}/{TileRow}/{TileCol}.jpeg?key=abc',
      attributionUrl: '',
    });
    expect(layer).to.include({
      url: 'https://wmts.example.org/1.0.0/topo/default/EPSG:3857/{z}/{y}/{x}.jpeg?key=abc',
      origin: 'https://wmts.example.org',
      attributionUrl: null,
    });
  });

  it('when a TMS row ({-y}) or a plain http server on a port is named, then it is accepted with that origin', () => {
    expect(consoleTileLayer({ ...osm, url: 'http://127.0.0.1:8099/tms/{z}/{x}/{-y}.png' })).to.include({
      url: 'http://127.0.0.1:8099/tms/{z}/{x}/{-y}.png',
      origin: 'http://127.0.0.1:8099',
    });
  });

  it('when the URL is not an http(s) URL template, then the gateway refuses to start and says what a template looks like', () => {
    for (const url of ['tile.openstreetmap.org/{z}/{x}/{y}.png', 'ftp://tiles.example.org/{z}/{x}/{y}.png', 'file:///srv/tiles/{z}/{x}/{y}.png']) {
      expect(problemsOf({ ...osm, url }), url).to.deep.equal([
        'CONSOLE_TILE_URL must be an http:// or https:// URL template, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      ]);
    }
  });

  it('when a placeholder is missing, unknown or in the host, then each is named', () => {
    expect(problemsOf({ ...osm, url: 'https://tiles.example.org/{z}/{x}.png' })).to.deep.equal([
      'CONSOLE_TILE_URL must be a URL template with {z}, {x} and {y} (e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png); it lacks {y}',
    ]);
    expect(problemsOf({ ...osm, url: 'https://{s}.tile.example.org/{z}/{x}/{y}.png' })[0]).to.match(
      /^CONSOLE_TILE_URL has \{s\}: only \{z\}, \{x\}, \{y\} \(or \{-y\}\), or WMTS's \{TileMatrix\}, \{TileCol\}, \{TileRow\}, are filled in/,
    );
    expect(problemsOf({ ...osm, url: 'https://tiles{z}.example.org/{x}/{y}.png' })).to.deep.equal([
      'CONSOLE_TILE_URL may have its placeholders in the path and query only, not in the host or port',
    ]);
    expect(problemsOf({ ...osm, url: 'https://tiles.example.org/{z}/{x}/{y.png' })).to.deep.include(
      'CONSOLE_TILE_URL must be a URL template with {z}, {x} and {y} (e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png); it lacks {y}',
    );
  });

  it('when credentials are in the URL, the credit is missing or its link is not http(s), then each is named, without echoing the URL', () => {
    const problems = problemsOf({
      url: 'https://user:secret@tiles.example.org/{z}/{x}/{y}.png',
      attribution: ' ',
      attributionUrl: 'javascript:alert(1)',
      maxZoom: 19,
    });
    expect(problems).to.have.length(3);
    expect(problems[0]).to.match(/^CONSOLE_TILE_URL must not carry a user name or password/);
    expect(problems[1]).to.match(/^CONSOLE_TILE_ATTRIBUTION is required with CONSOLE_TILE_URL/);
    expect(problems[2]).to.equal('CONSOLE_TILE_ATTRIBUTION_URL must be an http:// or https:// URL');
    expect(problems.join('\n')).not.to.include('secret');
  });

  it('when a credit is set without a layer, then it is refused: a half-configured layer is a mistake to show, not to ignore', () => {
    expect(problemsOf({ url: '', attribution: '© OpenStreetMap contributors', attributionUrl: '', maxZoom: 19 })[0]).to.match(
      /set CONSOLE_TILE_URL too, or neither/,
    );
  });

  it('when the gateway loads a bad layer from its environment, then loading the configuration fails with the same message (it does not start)', () => {
    const env = { INTERNAL_TOKEN_PRIVATE_KEY: 'pem' };
    expect(loadGatewayConfig(env)).to.include({ CONSOLE_TILE_URL: '', CONSOLE_TILE_MAX_ZOOM: 19 });
    expect(() => loadGatewayConfig({ ...env, CONSOLE_TILE_URL: 'tiles.example.org/{z}/{x}/{y}.png', CONSOLE_TILE_ATTRIBUTION: 'x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.match(/^Invalid configuration:\n {2}CONSOLE_TILE_URL must be an http:\/\/ or https:\/\/ URL template/);
    expect(() => loadGatewayConfig({ ...env, CONSOLE_TILE_URL: osm.url, CONSOLE_TILE_ATTRIBUTION: 'x', CONSOLE_TILE_MAX_ZOOM: '30' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.match(/CONSOLE_TILE_MAX_ZOOM must be <= 24/);
  });
});
