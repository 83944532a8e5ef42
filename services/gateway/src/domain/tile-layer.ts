import { ConfigError } from '@dfc/kit/config';

/** The tile layer the console's maps draw under everything else, as the page receives it. */
export interface TileLayer {
  /** Leaflet's URL template: `{z}`, `{x}` and `{y}` (or `{-y}`, counted from the south). */
  url: string;
  /** Plain text, shown in the map's corner. */
  attribution: string;
  attributionUrl: string | null;
  maxZoom: number;
  /** Where the tiles come from: what the console's CSP `img-src` allows besides the page itself. */
  origin: string;
}

export interface TileSettings {
  url: string;
  attribution: string;
  attributionUrl: string;
  maxZoom: number;
}

/**
 * WMTS's RESTful template names (OGC 07-057r7) for the tile matrix, column and row. They are
 * Leaflet's zoom, x and y only in a Web Mercator matrix set whose identifiers are the zoom levels
 * (GoogleMapsCompatible, EPSG:3857), which is what the console's map draws in.
 */
const WMTS_NAMES: Record<string, string> = { TileMatrix: 'z', TileCol: 'x', TileRow: 'y' };
const XYZ_NAMES = new Set(['z', 'x', 'y', '-y']);
const EXAMPLE = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

/**
 * `CONSOLE_TILE_*` read into the layer the console uses, or null for the shipped Natural Earth
 * basemap. Anything the map could not draw, or the CSP could not name, refuses to start: a
 * misconfigured layer would otherwise show as an empty map in every reviewer's browser.
 */
export function consoleTileLayer(settings: TileSettings): TileLayer | null {
  const problems: string[] = [];
  const attribution = settings.attribution.trim();
  const attributionUrl = settings.attributionUrl.trim();
  if (settings.url.trim() === '') {
    if (attribution !== '' || attributionUrl !== '')
      throw new ConfigError([
        'CONSOLE_TILE_ATTRIBUTION and CONSOLE_TILE_ATTRIBUTION_URL describe a tile layer: set CONSOLE_TILE_URL too, or neither',
      ]);
    return null;
  }
  const url = leafletTemplate(settings.url.trim(), problems);
  const origin = url === null ? null : originOf(url, problems);
  if (attribution === '')
    problems.push(
      'CONSOLE_TILE_ATTRIBUTION is required with CONSOLE_TILE_URL: the credit the tile provider asks for, e.g. "© OpenStreetMap contributors"',
    );
  if (attributionUrl !== '' && !isHttpUrl(attributionUrl)) problems.push('CONSOLE_TILE_ATTRIBUTION_URL must be an http:// or https:// URL');
  if (problems.length > 0 || url === null || origin === null) throw new ConfigError(problems);
  return { url, attribution, attributionUrl: attributionUrl === '' ? null : attributionUrl, maxZoom: settings.maxZoom, origin };
}

/** The template with WMTS's names replaced by Leaflet's; null (and the problems) when it is not a template the map can fill. */
function leafletTemplate(template: string, problems: string[]): string | null {
  const seen = new Set<string>();
  const unknown = new Set<string>();
  const converted = template.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    const xyz = WMTS_NAMES[name] ?? (XYZ_NAMES.has(name) ? name : null);
    if (xyz === null) {
      unknown.add(whole);
      return whole;
    }
    seen.add(xyz === '-y' ? 'y' : xyz);
    return `{${xyz}}`;
  });
  if (unknown.size > 0)
    problems.push(
      `CONSOLE_TILE_URL has ${[...unknown].join(', ')}: only {z}, {x}, {y} (or {-y}), or WMTS's {TileMatrix}, {TileCol}, {TileRow}, are filled in; ` +
        'write the rest (a subdomain, style or tile matrix set) out',
    );
  const missing = ['z', 'x', 'y'].filter((name) => !seen.has(name));
  if (missing.length > 0)
    problems.push(
      `CONSOLE_TILE_URL must be a URL template with {z}, {x} and {y} (e.g. ${EXAMPLE}); it lacks ${missing.map((name) => `{${name}}`).join(', ')}`,
    );
  if (/[{}]/.test(converted.replace(/\{(z|x|y|-y)\}/g, '')) && unknown.size === 0) problems.push('CONSOLE_TILE_URL has an unmatched { or }');
  return problems.length > 0 ? null : converted;
}

/** The origin the tiles come from, the same for every tile: the placeholders may only be in the path and query. */
function originOf(template: string, problems: string[]): string | null {
  const filled = (digit: string) => template.replace(/\{(z|x|y|-y)\}/g, digit);
  let first: URL;
  let second: URL;
  try {
    first = new URL(filled('0'));
    second = new URL(filled('1'));
  } catch {
    problems.push(`CONSOLE_TILE_URL must be an http:// or https:// URL template, e.g. ${EXAMPLE}`);
    return null;
  }
  if (first.protocol !== 'https:' && first.protocol !== 'http:') {
    problems.push(`CONSOLE_TILE_URL must be an http:// or https:// URL template, e.g. ${EXAMPLE}`);
    return null;
  }
  if (first.username !== '' || first.password !== '') {
    problems.push('CONSOLE_TILE_URL must not carry a user name or password: every browser that opens the console would read them');
    return null;
  }
  if (first.origin !== second.origin) {
    problems.push('CONSOLE_TILE_URL may have its placeholders in the path and query only, not in the host or port');
    return null;
  }
  return first.origin;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
