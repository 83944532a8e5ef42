import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import { MethodNotAllowedError, NotFoundError, ServiceUnavailableError } from '@dfc/kit/errors';
import type { TileLayer } from '../domain/tile-layer.js';

/**
 * The web console (apps/console, built by Vite to its dist/) at `/console`:
 * files under `/console/assets/` by name (their names carry a content hash, so
 * they are cached for a year), `/console/config.json` the deployment's map
 * settings, any other path the page itself (the console routes in the browser:
 * SPA fallback), never cached so a new release is seen at once. Every answer
 * carries a strict Content-Security-Policy: the page loads only its own files
 * (and the configured tile layer's images) and talks only to this origin.
 */
export function consoleCsp(tiles: TileLayer | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${tiles === null ? '' : ` ${tiles.origin}`}`,
    "connect-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** `GET /console/config.json`: what the page needs of the deployment's configuration. */
export interface ConsoleSettings {
  tiles: { url: string; attribution: string; attribution_url: string | null; max_zoom: number } | null;
}

const SETTINGS_PATH = '/console/config.json';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);

interface ConsoleFile {
  type: string;
  body: Buffer;
  gzipped: Buffer | null;
}

export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}

/** `@dfc/console`'s build output, wherever the workspace is installed (a checkout or the image). */
export function defaultConsoleDirectory(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@dfc/console/package.json')), 'dist');
}

export function consoleAssets(directory: string = defaultConsoleDirectory(), tiles: TileLayer | null = null): Middleware {
  const csp = consoleCsp(tiles);
  const settings: ConsoleSettings = {
    tiles: tiles && { url: tiles.url, attribution: tiles.attribution, attribution_url: tiles.attributionUrl, max_zoom: tiles.maxZoom },
  };
  let files: Promise<Map<string, ConsoleFile>> | undefined;
  const load = () => {
    // Read once and kept in memory (a few hundred KB); a failed read (not built yet) is retried next time.
    files ??= loadFiles(directory).catch((error: unknown) => {
      files = undefined;
      throw error;
    });
    return files;
  };
  return async (ctx) => {
    ctx.set('Content-Security-Policy', csp);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      // As the gateway's other own routes answer (methodRules): OPTIONS lists the methods, the rest is 405.
      ctx.set('Allow', 'GET, HEAD, OPTIONS');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        return;
      }
      throw new MethodNotAllowedError();
    }
    if (ctx.path === SETTINGS_PATH) {
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = settings;
      return;
    }
    const loaded = await load().catch(() => {
      throw new ServiceUnavailableError('The console is not built: run `npm run build -w @dfc/console`.');
    });
    const asset = ctx.path.startsWith('/console/assets/');
    const file = loaded.get(asset ? ctx.path.slice('/console/'.length) : 'index.html');
    if (file === undefined) throw new NotFoundError();
    ctx.set('Cache-Control', asset ? 'public, max-age=31536000, immutable' : 'no-cache');
    send(ctx, file);
  };
}

function send(ctx: Context, file: ConsoleFile): void {
  ctx.type = file.type;
  if (file.gzipped !== null) {
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzipped;
      return;
    }
  }
  ctx.body = file.body;
}

/** Every file of the build by its path relative to dist/ ('index.html', 'assets/index-….js'). */
async function loadFiles(directory: string): Promise<Map<string, ConsoleFile>> {
  const files = new Map<string, ConsoleFile>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const extension = extname(entry.name);
    const body = await readFile(path);
    files.set(relative(directory, path).split(sep).join('/'), {
      type: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      body,
      gzipped: COMPRESSIBLE.has(extension) ? gzipSync(body, { level: 9 }) : null,
    });
  }
  if (!files.has('index.html')) throw new Error(`no index.html in ${directory}`);
  return files;
}
