import { useEffect, useRef, useState } from 'preact/hooks';
import type { Feature } from 'geojson';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { LayerKind, MapLayer } from './layers';
import { attributionHtml, mapSettings, type TileSettings } from './tiles';
import type { BBox } from './zones';

export type { LayerKind, MapLayer } from './layers';

const STYLES: Record<LayerKind, L.PathOptions> = {
  area: { color: '#0b4f9c', weight: 2, fillOpacity: 0.25 },
  zone: { color: '#b3261e', weight: 1.5, dashArray: '4 3', fillOpacity: 0.12 },
  'zone-prohibited': { color: '#b3261e', weight: 1.5, dashArray: '4 3', fillOpacity: 0.12 },
  'zone-authorisation': { color: '#b85400', weight: 1.5, dashArray: '4 3', fillOpacity: 0.1 },
  'zone-conditional': { color: '#7a6400', weight: 1.5, dashArray: '4 3', fillOpacity: 0.08 },
  'zone-info': { color: '#4b4f8f', weight: 1, dashArray: '2 3', fillOpacity: 0.05 },
  'zone-raised': { color: '#b3261e', weight: 3, fillOpacity: 0.12 },
  finding: { color: '#8a4b00', weight: 2, fillOpacity: 0.2 },
  competing: { color: '#6a1b9a', weight: 2, dashArray: '5 3', fillOpacity: 0.2 },
  draft: { color: '#0b4f9c', weight: 2, dashArray: '6 4', fillOpacity: 0.15 },
  preview: { color: '#1b6e2d', weight: 2, fillOpacity: 0.2 },
  volume: { color: '#0b4f9c', weight: 2, fillOpacity: 0.2 },
  refused: { color: '#a0201a', weight: 3, fillOpacity: 0.3 },
};

/** Where the map opens with nothing to show: the Netherlands, where the sample zones are. */
const HOME: L.LatLngExpression = [52.2, 5.0];

/**
 * A Leaflet map (SVG, no WebGL needed) over the deployment's tile layer or,
 * by default, the shipped basemap, with a scale bar and the coordinates under
 * the cursor (or of the centre, for keyboard users panning with the arrow
 * keys). It fits `layers`; `context` (the zones around) is drawn beneath them
 * and not fitted, and `onView` hears the box the map shows after every move.
 * `reveal` scrolls it into view whenever it changes to a value other than
 * null: a form beside it asks for clicks on it, and may have scrolled it away.
 */
export function MapView({
  layers,
  context = [],
  label,
  onPick,
  onView,
  reveal = null,
}: {
  layers: MapLayer[];
  context?: MapLayer[];
  label: string;
  onPick?: (position: [number, number]) => void;
  onView?: (box: BBox) => void;
  reveal?: number | null;
}) {
  const container = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const overlay = useRef<L.FeatureGroup | null>(null);
  const zones = useRef<L.FeatureGroup | null>(null);
  const [cursor, setCursor] = useState('');
  const pick = useRef(onPick);
  pick.current = onPick;
  const view = useRef(onView);
  view.current = onView;

  useEffect(() => {
    if (container.current === null) return undefined;
    const created = L.map(container.current, { zoomSnap: 0.5, keyboard: true }).setView(HOME, 7);
    created.attributionControl.setPrefix('Leaflet');
    L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(created);
    const show = (at: L.LatLng) => setCursor(`${at.lat.toFixed(5)}, ${at.lng.toFixed(5)}`);
    const tell = () => {
      const bounds = created.getBounds();
      view.current?.([bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()]);
    };
    created.on('mousemove', (event: L.LeafletMouseEvent) => show(event.latlng));
    created.on('moveend', () => (show(created.getCenter()), tell()));
    created.on('click', (event: L.LeafletMouseEvent) => pick.current?.([round(event.latlng.lng), round(event.latlng.lat)]));
    show(created.getCenter());
    // The zones sit in a pane of their own beneath the overlay pane: redrawn as the view moves, they stay under the request.
    created.createPane('zones').style.zIndex = '390';
    zones.current = L.featureGroup().addTo(created);
    overlay.current = L.featureGroup().addTo(created);
    map.current = created;
    tell();
    void mapSettings().then(({ tiles }) => {
      if (map.current !== created) return;
      if (tiles === null) void drawBasemap(created);
      else drawTiles(created, tiles);
    });
    return () => {
      created.remove();
      map.current = null;
    };
  }, []);

  useEffect(() => {
    if (reveal !== null) container.current?.scrollIntoView({ block: 'nearest' });
  }, [reveal]);

  const zoneContent = JSON.stringify(context);
  useEffect(() => {
    const group = zones.current;
    if (group === null) return;
    group.clearLayers();
    for (const layer of context) {
      L.geoJSON(layer.data, { pane: 'zones', style: STYLES[layer.kind], pointToLayer: circlesIn('zones') })
        .bindTooltip(layer.label, { sticky: true })
        .addTo(group);
    }
  }, [zoneContent]);

  // By content, not identity: a screen that polls re-renders with equal layers, and the view must not jump.
  const content = JSON.stringify(layers);
  useEffect(() => {
    const group = overlay.current;
    if (group === null || map.current === null) return;
    group.clearLayers();
    for (const layer of layers) {
      L.geoJSON(layer.data, { style: STYLES[layer.kind], pointToLayer: circlesIn('overlayPane') })
        .bindTooltip(layer.label, { sticky: true })
        .addTo(group);
    }
    const bounds = group.getBounds();
    if (bounds.isValid()) map.current.fitBounds(bounds, { padding: [24, 24], maxZoom: 14 });
  }, [content]);

  return (
    <figure class="map">
      <div ref={container} class="map-canvas" role="region" aria-label={label} />
      <figcaption>
        <span>
          Coordinates (lat, lon): <output aria-label="Coordinates under the cursor">{cursor}</output>
        </span>
        <span class="legend">
          {Array.from(new Set([...layers, ...context].map((layer) => layer.kind))).map((kind) => (
            <span key={kind} class={`legend-${kind}`}>
              {LEGEND[kind]}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}

const LEGEND: Record<LayerKind, string> = {
  area: 'Flight area',
  zone: 'Zone',
  'zone-prohibited': 'Prohibited zone',
  'zone-authorisation': 'Zone needing authorisation',
  'zone-conditional': 'Conditional zone',
  'zone-info': 'Zone (information, U-space)',
  'zone-raised': 'Zone that raised the review',
  finding: 'Shared with another flight',
  competing: 'Competing pending flight',
  draft: 'Drawn area',
  preview: 'Previewed area',
  volume: 'Volume',
  refused: 'Refused feature',
};

/**
 * A Point is the API's circle: drawn with its `radius_m` in metres on the ground, as Leaflet's `L.circle`
 * does (not as a marker, whose icon the console does not ship); without a radius yet, a dot where it is.
 */
function circlesIn(pane: string): (feature: Feature, at: L.LatLng) => L.Layer {
  return (feature, at) => {
    const radius: unknown = feature.properties?.['radius_m'];
    return typeof radius === 'number' && radius > 0 ? L.circle(at, { radius, pane }) : L.circleMarker(at, { radius: 4, pane });
  };
}

/** The shipped Natural Earth outlines, in a pane beneath everything (its own chunk, loaded after the page). */
async function drawBasemap(map: L.Map): Promise<void> {
  const { basemap } = await import('./basemap');
  const { land, borders } = basemap();
  map.attributionControl.addAttribution('Basemap: Natural Earth');
  const pane = map.createPane('basemap');
  pane.style.zIndex = '350';
  L.geoJSON(land, { pane: 'basemap', interactive: false, style: { color: '#9aa59a', weight: 0.8, fillColor: '#eef2e6', fillOpacity: 1 } }).addTo(map);
  L.geoJSON(borders, { pane: 'basemap', interactive: false, style: { color: '#8d968d', weight: 0.8, dashArray: '3 2' } }).addTo(map);
}

/**
 * The deployment's tile layer (CONSOLE_TILE_*). The page sends no referrer anywhere, but tile
 * providers' usage policies (OpenStreetMap's among them) ask browsers for one: the tiles send the
 * console's origin alone, never a path, which names requests.
 */
function drawTiles(map: L.Map, tiles: TileSettings): void {
  map.setMaxZoom(tiles.max_zoom);
  L.tileLayer(tiles.url, { maxZoom: tiles.max_zoom, attribution: attributionHtml(tiles), referrerPolicy: 'strict-origin' }).addTo(map);
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
