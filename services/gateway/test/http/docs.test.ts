import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

describe('GET /api/openapi.json and /api/docs', () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway();
  });
  after(() => gateway.closeAll());

  it('when the document is asked for, then it is served as JSON without a key, also under /api/v1', async () => {
    for (const path of ['/api/openapi.json', '/api/v1/openapi.json']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      const document = (await response.json()) as { openapi: string; servers: Array<{ url: string }> };
      expect(document.openapi).to.equal('3.1.0');
      expect(
        document.servers.map((server) => server.url),
        'an absolute server URL, as generators need',
      ).to.deep.equal([gateway.url]);
    }
  });

  it('when the docs page is opened, then it loads swagger-ui from the gateway and points it at /api/openapi.json', async () => {
    const page = await fetch(`${gateway.url}/api/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const html = await page.text();
    expect(html).to.include('/api/docs/swagger-ui-bundle.js');
    expect(html).to.not.match(/https?:\/\//);
    const initializer = await (await fetch(`${gateway.url}/api/docs/initializer.js`)).text();
    expect(initializer).to.include("url: '/api/openapi.json'");
  });

  it("when the page's assets are fetched, then swagger-ui-dist's files are served", async () => {
    const bundle = await fetch(`${gateway.url}/api/docs/swagger-ui-bundle.js`);
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.match(/javascript/);
    expect((await bundle.text()).length).to.be.greaterThan(100_000);
    const css = await fetch(`${gateway.url}/api/docs/swagger-ui.css`);
    expect(css.headers.get('content-type')).to.match(/^text\/css/);
  });

  it('when another file of node_modules is asked for, then 404', async () => {
    for (const path of ['/api/docs/package.json', '/api/docs/index.js', '/api/docs/..%2Fpackage.json']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(404);
    }
  });

  it('when the document is POSTed to, then 405', async () => {
    const response = await fetch(`${gateway.url}/api/openapi.json`, { method: 'POST' });
    expect(response.status).to.equal(405);
    expect(await response.json()).to.deep.equal({ message: 'Method Not Allowed.' });
  });
});
