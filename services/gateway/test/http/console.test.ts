import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { expect } from 'chai';
import { consoleCsp, defaultConsoleDirectory } from '../../src/http/console.js';
import { consoleTileLayer } from '../../src/domain/tile-layer.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const PAGE =
  '<!DOCTYPE html><html lang="en"><head><title>console</title></head><body><script type="module" src="/console/assets/index-abc123.js"></script></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

/** The raw answer, without fetch's transparent decompression, to see what went over the wire. */
function raw(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /console: the web console served by the gateway', () => {
  let gateway: TestGateway;
  let directory: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'dfc-console-'));
    gateway = await startTestGateway({ consoleDirectory: directory });
  });
  after(async () => {
    await gateway.closeAll();
    await rm(directory, { recursive: true, force: true });
  });

  it('when the console is not built, then 503 says how to build it, and once built it is served without a restart', async () => {
    const missing = await fetch(`${gateway.url}/console`);
    expect(missing.status).to.equal(503);
    expect(((await missing.json()) as { message: string }).message).to.match(/npm run build/);

    await mkdir(join(directory, 'assets'), { recursive: true });
    await writeFile(join(directory, 'index.html'), PAGE);
    await writeFile(join(directory, 'assets', 'index-abc123.js'), SCRIPT);
    const page = await fetch(`${gateway.url}/console`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.equal(PAGE);
  });

  it('when the page is opened, then it comes with a strict CSP, uncached, and deep links get the same page (SPA fallback)', async () => {
    for (const path of ['/console', '/console/', '/console/reviews/1b7c9c5e-0000-4000-8000-000000000000', '/console/zones/import']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(response.headers.get('content-type'), path).to.equal('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy'), path).to.equal(consoleCsp(null));
      expect(response.headers.get('cache-control'), path).to.equal('no-cache');
      expect(response.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(await response.text(), path).to.equal(PAGE);
    }
    expect(consoleCsp(null))
      .to.include("script-src 'self'")
      .and.include("connect-src 'self'")
      .and.include("default-src 'none'")
      .and.include("img-src 'self' data:;")
      .and.not.include('unsafe');
  });

  it('when no tile layer is configured, then config.json says so (the map draws the shipped basemap) and images come only from the page', async () => {
    const response = await fetch(`${gateway.url}/console/config.json`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-cache');
    expect(response.headers.get('content-security-policy')).to.equal(consoleCsp(null));
    expect(await response.json()).to.deep.equal({ tiles: null });
  });

  it('when a hashed asset is fetched, then it is cached for a year and sent gzipped to clients that accept it', async () => {
    const zipped = await raw(`${gateway.url}/console/assets/index-abc123.js`, { 'accept-encoding': 'gzip, br' });
    expect(zipped.status).to.equal(200);
    expect(zipped.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(zipped.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers['vary']).to.match(/accept-encoding/i);
    expect(zipped.body.length).to.be.lessThan(SCRIPT.length / 4);
    expect(gunzipSync(zipped.body).toString('utf8')).to.equal(SCRIPT);

    const plain = await raw(`${gateway.url}/console/assets/index-abc123.js`, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.body.toString('utf8')).to.equal(SCRIPT);
  });

  it('when an asset that is not in the build is asked for, then 404, not the page (also for paths that try to leave the build)', async () => {
    for (const path of ['/console/assets/index-zzz.js', '/console/assets/..%2F..%2Fpackage.json', '/console/assets/']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(404);
      expect(await response.json(), path).to.deep.equal({ message: 'Not Found.' });
    }
  });

  it('when the console is written to, then 405 with Allow; OPTIONS lists the methods', async () => {
    const response = await fetch(`${gateway.url}/console/zones`, { method: 'POST', body: '{}' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    expect(await response.json()).to.deep.equal({ message: 'Method Not Allowed.' });
    const options = await fetch(`${gateway.url}/console`, { method: 'OPTIONS' });
    expect(options.status).to.equal(204);
    expect(options.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
  });

  it('when the default build directory is used, then it is apps/console/dist of the @dfc/console workspace', () => {
    expect(defaultConsoleDirectory().split(/[\\/]/).slice(-3)).to.deep.equal(['apps', 'console', 'dist']);
  });
});

describe('GET /console with a tile layer (CONSOLE_TILE_URL): the map draws it, and the CSP lets its images in', () => {
  let gateway: TestGateway;
  let directory: string;
  const tiles = consoleTileLayer({
    url: 'https://tiles.example.org:8443/wmts/1.0.0/topo/default/GoogleMapsCompatible/{TileMatrix}/{TileRow}/{TileCol}.png',
    attribution: '© Example Mapping Agency',
    attributionUrl: 'https://example.org/copyright',
    maxZoom: 17,
  });

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'dfc-console-'));
    await mkdir(join(directory, 'assets'), { recursive: true });
    await writeFile(join(directory, 'index.html'), PAGE);
    gateway = await startTestGateway({ consoleDirectory: directory, ...(tiles === null ? {} : { consoleTiles: tiles }) });
  });
  after(async () => {
    await gateway.closeAll();
    await rm(directory, { recursive: true, force: true });
  });

  it("when the page or its settings are fetched, then img-src names the tile layer's origin and nothing else changes", async () => {
    for (const path of ['/console', '/console/reviews/1b7c9c5e-0000-4000-8000-000000000000', '/console/config.json']) {
      const csp = (await fetch(`${gateway.url}${path}`)).headers.get('content-security-policy') ?? '';
      expect(csp.split('; '), path).to.include("img-src 'self' data: https://tiles.example.org:8443");
      expect(csp.replace(' https://tiles.example.org:8443', ''), path).to.equal(consoleCsp(null));
    }
  });

  it('when config.json is fetched, then it holds the layer as Leaflet fills it: WMTS names as {z}/{y}/{x}, the credit, the zoom limit', async () => {
    const response = await fetch(`${gateway.url}/console/config.json`);
    expect(await response.json()).to.deep.equal({
      tiles: {
        url: 'https://tiles.example.org:8443/wmts/1.0.0/topo/default/GoogleMapsCompatible/{z}/{y}/{x}.png',
        attribution: '© Example Mapping Agency',
        attribution_url: 'https://example.org/copyright',
        max_zoom: 17,
      },
    });
  });
});
