import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import { servedAt, type OpenApiDocument } from '@dfc/contracts';
import { NotFoundError } from '@dfc/kit/errors';
import { originUrl } from './public-origin.js';
import type { GatewayState } from './state.js';

/** One copy per allowed address (requirePublicOrigin has settled it); a bound all the same. */
const MAX_SERVED_ADDRESSES = 16;

/** swagger-ui-dist's files the page needs, served from node_modules (no CDN). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Drone flight clearance API</title>
    <link rel="stylesheet" type="text/css" href="/api/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="/api/docs/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/api/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/api/docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/api/docs/initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/** A separate script rather than an inline one, so the page works under a strict CSP. */
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

export function isDocumentPath(path: string): boolean {
  return path === '/api/openapi.json' || path === '/api/docs' || path.startsWith('/api/docs/');
}

/**
 * `/api/openapi.json` (the assembled OpenAPI 3.1 document) and the `/api/docs`
 * page. The document names the gateway's public address (its `servers` URL is
 * absolute, as client generators need), one copy per address.
 */
export function docsRouter(openApiDocument: OpenApiDocument): Router {
  const documents = new Map<string, string>();
  const documentFor = (serverUrl: string) => {
    let document = documents.get(serverUrl);
    if (document === undefined) {
      document = JSON.stringify(servedAt(openApiDocument, serverUrl));
      if (documents.size < MAX_SERVED_ADDRESSES) documents.set(serverUrl, document);
    }
    return document;
  };
  const assets = new AssetFiles(swaggerUiDirectory());
  const router = new Router<GatewayState>();
  router.get('/api/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentFor(originUrl(ctx.state.publicOrigin));
  });
  router.get('/api/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_PAGE;
  });
  router.get('/api/docs/initializer.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INITIALIZER;
  });
  router.get('/api/docs/:asset', async (ctx) => {
    const name = ctx.params.asset ?? '';
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) throw new NotFoundError();
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = await assets.read(name);
  });
  return router;
}

/** Read once, on first request, then served from memory. */
class AssetFiles {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(private readonly directory: string) {}

  read(name: string): Promise<Buffer> {
    let file = this.cache.get(name);
    if (file === undefined) {
      file = readFile(join(this.directory, name));
      file.catch(() => this.cache.delete(name));
      this.cache.set(name, file);
    }
    return file;
  }
}

function swaggerUiDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}
