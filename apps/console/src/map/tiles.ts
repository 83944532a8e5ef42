/** The deployment's map settings, as the gateway serves them at `/console/config.json` (CONSOLE_TILE_*). */
export interface TileSettings {
  /** Leaflet's template, `{z}`, `{x}`, `{y}` or `{-y}`. */
  url: string;
  attribution: string;
  attribution_url: string | null;
  max_zoom: number;
}

export interface MapSettings {
  /** Null: the shipped Natural Earth basemap, nothing fetched from elsewhere. */
  tiles: TileSettings | null;
}

const OFFLINE: MapSettings = { tiles: null };
let settings: Promise<MapSettings> | undefined;

/**
 * Read once per page: every map of the session draws the same layer. A console served without
 * the settings (an older gateway) or a failed read draws the shipped basemap.
 */
export function mapSettings(): Promise<MapSettings> {
  settings ??= fetch('/console/config.json', { credentials: 'omit', cache: 'no-store', headers: { Accept: 'application/json' } })
    .then(async (response) => (response.ok ? ((await response.json()) as MapSettings) : OFFLINE))
    .catch(() => OFFLINE);
  return settings;
}

/**
 * The credit in the map's corner. Leaflet writes attributions as HTML, so the configured text is
 * escaped: it is shown as written, never interpreted.
 */
export function attributionHtml(tiles: Pick<TileSettings, 'attribution' | 'attribution_url'>): string {
  const text = escapeHtml(tiles.attribution);
  if (tiles.attribution_url === null) return text;
  return `<a href="${escapeHtml(tiles.attribution_url)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
